import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { registerAuthRoutes } from '@/lib/auth/openapi';
import { registerCreditsRoutes } from '@/lib/credits/openapi';
import { registerDevicesRoutes } from '@/lib/devices/openapi';
import { registerGroupsRoutes } from '@/lib/groups/openapi';
import { registerHeartbeatsRoutes } from '@/lib/heartbeats/openapi';
import { registerMessagesRoutes } from '@/lib/messages/openapi';
import { registerPhonesRoutes } from '@/lib/phones/openapi';
import { registerSmsGateAppRoutes } from '@/lib/protocols/smsgate-app/openapi';
import { registerWebhooksRoutes } from '@/lib/webhooks/openapi';
import { defineRoute } from './define';

/** Every area registers its operations here; the document is generated once per process. */
const AREAS: Array<(registry: OpenAPIRegistry) => void> = [
  registerDevicesRoutes,
  registerAuthRoutes,
  registerPhonesRoutes,
  registerGroupsRoutes,
  registerCreditsRoutes,
  registerHeartbeatsRoutes,
  registerMessagesRoutes,
  registerWebhooksRoutes,
  registerSmsGateAppRoutes,
  registerMetaRoutes,
];

function registerMetaRoutes(registry: OpenAPIRegistry): void {
  defineRoute(registry, {
    method: 'get',
    path: '/api/v1/openapi.json',
    summary: 'This OpenAPI document',
    tags: ['Meta'],
    auth: 'none',
    response: { status: 200, description: 'The OpenAPI 3.1 document of this API.' },
  });
}

let cached: object | undefined;

export function openApiDocument(): object {
  if (cached) return cached;
  const registry = new OpenAPIRegistry();
  registry.registerComponent('securitySchemes', 'AccountKey', {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: 'An account-wide API key, `sk_…`, created in Settings → API Keys or by POST /api/v1/auth/api-keys.',
  });
  registry.registerComponent('securitySchemes', 'DeviceKey', {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description: 'A device key, `dk_…`, issued once when a phone verifies its SIM.',
  });
  registry.registerComponent('securitySchemes', 'Session', {
    type: 'apiKey',
    in: 'cookie',
    name: 'next-auth.session-token',
    description: 'The dashboard session. State changes must come from the app origin (Origin is checked).',
  });
  for (const register of AREAS) register(registry);
  cached = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Simgate API',
      version: '1.0.0',
      description: [
        'Send and receive SMS through your own Android phones.',
        '',
        '**Conventions.** JSON in and out, snake_case fields, RFC 3339 UTC timestamps. Errors are RFC 9457',
        '`application/problem+json` with a machine-readable `code`. Lists are `{ data, next_cursor }`,',
        'newest first, with `?limit=` (1–100, default 20) and `?cursor=`. Every response has `x-request-id`.',
        'Bodies over 1 MiB answer 413, non-JSON bodies 415, malformed JSON 400 `VALIDATION_ERROR`.',
      ].join('\n'),
    },
    servers: [{ url: '/' }],
  });
  return cached;
}
