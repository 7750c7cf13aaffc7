import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';

export function registerHeartbeatsRoutes(_registry: OpenAPIRegistry): void {}
