import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';

export function registerMessagesRoutes(_registry: OpenAPIRegistry): void {}
