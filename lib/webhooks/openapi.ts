import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';

export function registerWebhooksRoutes(_registry: OpenAPIRegistry): void {}
