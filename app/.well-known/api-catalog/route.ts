import { route } from '@/lib/http/route';
import { API_CATALOG_LINK, API_CATALOG_TYPE, apiCatalog } from '@/lib/openapi/api-catalog';
import { z } from '@/lib/zod';

const link = z.object({ href: z.string(), type: z.string() });

export const GET = route(
  {
    auth: 'none',
    doc: {
      operationId: 'getApiCatalog',
      summary: 'The API catalog (RFC 9727)',
      description:
        'A linkset of the APIs served here (SMSGate’s integrator API at /3rdparty/v1, this API at /api/v1, the Twilio-compatible API at /2010-04-01), each with its OpenAPI document (`service-desc`), its documentation (`service-doc`) and its readiness probe (`status`). Served as `application/linkset+json` with the RFC 9727 profile.',
      tags: ['Meta'],
      response: {
        description: 'The catalog.',
        schema: z.object({
          linkset: z.array(
            z.object({
              anchor: z.string(),
              'service-desc': z.array(link),
              'service-doc': z.array(link),
              status: z.array(link),
            }),
          ),
        }),
      },
    },
  },
  async ({ req }) =>
    new Response(JSON.stringify(apiCatalog(req)), {
      headers: {
        'content-type': API_CATALOG_TYPE,
        link: API_CATALOG_LINK,
        'cache-control': 'public, max-age=3600',
      },
    }),
);
