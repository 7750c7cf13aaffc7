import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';

export function registerDevicesRoutes(_registry: OpenAPIRegistry): void {}
