import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { registerEventPayloads } from '@/lib/webhooks/docs';
import { type DocumentedSpec, type HttpMethod, registerOperation, specOf } from './define';
import { TAGS } from './tags';

/** One route module and its URL path (`/api/v1/phones/{id}`), as the generated index under app/ lists them. */
export type RouteIndex = ReadonlyArray<{ path: string; module: Record<string, unknown> }>;

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export type Operation = { method: HttpMethod; path: string; spec: DocumentedSpec };

/** Every handler the modules export, with the spec its route wrapper gave it; a handler without one is an error. */
export function operationsOf(routes: RouteIndex): Operation[] {
  return routes.flatMap(({ path, module }) =>
    HTTP_METHODS.filter((method) => method in module).map((method) => {
      const spec = specOf(module[method]);
      if (!spec?.doc) throw new Error(`${method} ${path} has no documentation: give its route() a \`doc\``);
      return { method: method.toLowerCase() as HttpMethod, path, spec: spec as DocumentedSpec };
    }),
  );
}

function registerSecuritySchemes(registry: OpenAPIRegistry): void {
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
  registry.registerComponent('securitySchemes', 'IntegratorBasic', {
    type: 'http',
    scheme: 'basic',
    description: 'SMSGate’s integrator API: any username, and a Simgate account key (`sk_…`) as the password.',
  });
  registry.registerComponent('securitySchemes', 'IntegratorBearer', {
    type: 'http',
    scheme: 'bearer',
    description:
      'SMSGate’s integrator API: a Simgate account key (`sk_…`), or a JWT from POST /3rdparty/v1/auth/token (limited to its scopes, which each operation names), as the Bearer token.',
  });
  registry.registerComponent('securitySchemes', 'TwilioBasic', {
    type: 'http',
    scheme: 'basic',
    description:
      'The Twilio-compatible API: the account’s Account SID (`AC…`) as the username and its Auth Token as the password (Settings → API keys → Twilio compatibility).',
  });
  registry.registerComponent('securitySchemes', 'AppToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'The token the SMSGate app received when it signed in by code (a device credential, `dk_…`).',
  });
}

const documents = new WeakMap<RouteIndex, object>();

/** The OpenAPI document of the given routes, generated from what each route declares; once per process. */
export function openApiDocument(routes: RouteIndex): object {
  const cached = documents.get(routes);
  if (cached) return cached;
  const registry = new OpenAPIRegistry();
  registerSecuritySchemes(registry);
  for (const { method, path, spec } of operationsOf(routes)) registerOperation(registry, method, path, spec);
  registerEventPayloads(registry);
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
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
        'A field that a `/api/v1` body does not take answers 400 `VALIDATION_ERROR` naming it',
        '(`errors: [{ path, message: "unknown field" }]`) rather than being ignored; an unknown query',
        'parameter is ignored.',
      ].join('\n'),
      // No licence is granted yet (package.json is private, the repository has no LICENSE): say so.
      license: { name: 'Proprietary: no licence granted', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: '/', description: 'This Simgate instance.' }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
  });
  documents.set(routes, document);
  return document;
}
