import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { defineRoute } from '@/lib/openapi/define';

export function registerAuthRoutes(registry: OpenAPIRegistry): void {
  for (const which of ['register', 'login'] as const) {
    defineRoute(registry, {
      method: 'post',
      path: `/api/v1/auth/${which}`,
      summary: `Retired: password ${which === 'register' ? 'registration' : 'sign-in'}`,
      description:
        'Password sign-in is retired and this endpoint is removed in the next release. Activate a device instead.',
      tags: ['Authentication'],
      auth: 'none',
      response: { status: 410, description: 'Always `AUTH_METHOD_RETIRED`.' },
      errors: ['AUTH_METHOD_RETIRED'],
    });
  }
}
