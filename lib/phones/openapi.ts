import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';

export function registerPhonesRoutes(_registry: OpenAPIRegistry): void {}
