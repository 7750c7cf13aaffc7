import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';

export function registerGroupsRoutes(_registry: OpenAPIRegistry): void {}
