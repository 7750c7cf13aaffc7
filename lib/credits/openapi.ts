import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';

export function registerCreditsRoutes(_registry: OpenAPIRegistry): void {}
