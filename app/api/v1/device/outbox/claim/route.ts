import { route } from '@/lib/http/route';
import { claimForDevice } from '@/lib/messages/claim';
import { CLAIM_OUTBOX } from '@/lib/messages/docs';
import { presentForDevice } from '@/lib/messages/present';
import { claimAnswerSchema, claimBody, claimQuery } from '@/lib/messages/schemas';

// The body is optional: a bare POST claims up to 10.
const optionalClaimBody = claimBody.optional().transform((body) => body ?? { limit: 10 });

export const POST = route(
  {
    auth: 'device',
    body: optionalClaimBody,
    query: claimQuery,
    doc: {
      operationId: 'claimOutbox',
      summary: 'Claim messages to send',
      description: CLAIM_OUTBOX,
      tags: ['Phone API'],
      response: { description: 'The claimed messages (possibly none).', schema: claimAnswerSchema },
      errors: ['DEVICE_NOT_ACTIVATED', 'FORBIDDEN'],
    },
  },
  async ({ db, principal, body, query, req }) => {
    const { claimed, cancel } = await claimForDevice(db, principal, {
      limit: body.limit,
      waitMs: query.wait * 1000,
      signal: req.signal,
    });
    return { data: claimed.map(presentForDevice), cancel };
  },
);
