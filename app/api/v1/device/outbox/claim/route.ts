import { route } from '@/lib/http/route';
import { claimOutbox } from '@/lib/messages/claim';
import { presentForDevice } from '@/lib/messages/present';
import { claimBody, claimQuery } from '@/lib/messages/schemas';

// The body is optional: a bare POST claims up to 10.
const optionalClaimBody = claimBody.optional().transform((body) => body ?? { limit: 10 });

export const POST = route(
  { auth: 'device', body: optionalClaimBody, query: claimQuery },
  async ({ db, principal, body, query, req }) => ({
    data: (await claimOutbox(db, principal, { limit: body.limit, waitMs: query.wait * 1000, signal: req.signal })).map(
      presentForDevice,
    ),
  }),
);
