import { catalogueEntrySchema, presentCatalogue } from '@/lib/event-catalogue/catalogue';
import { route } from '@/lib/http/route';
import { CATALOGUE } from '@/lib/webhooks/docs';
import { z } from '@/lib/zod';

export const GET = route(
  {
    auth: 'none',
    doc: {
      operationId: 'listWebhookEvents',
      summary: 'The event catalogue',
      description: CATALOGUE,
      tags: ['Webhooks'],
      response: { description: 'The catalogue.', schema: z.object({ data: z.array(catalogueEntrySchema) }) },
    },
  },
  async () => ({ data: presentCatalogue() }),
);
