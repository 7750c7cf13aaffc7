import { route } from '@/lib/http/route';
import { openApiDocument } from '@/lib/openapi/document';
import { z } from '@/lib/zod';

export const GET = route(
  {
    auth: 'none',
    doc: {
      operationId: 'getOpenApiDocument',
      summary: 'This OpenAPI document',
      description: 'Generated from the routes themselves: every operation is declared where it is served.',
      tags: ['Meta'],
      response: {
        description: 'The OpenAPI 3.1 document of this API.',
        schema: z.looseObject({ openapi: z.string(), info: z.looseObject({}), paths: z.looseObject({}) }),
      },
    },
  },
  // The index imports this module too: loaded on the first request, it completes no import cycle.
  async () => openApiDocument((await import('@/app/route-index')).ROUTES),
);
