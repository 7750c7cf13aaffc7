import { confirmEmailAddress } from '@/lib/email/addresses';
import { confirmEmailAddressBody, confirmedEmailAddressSchema } from '@/lib/email/schemas';
import { route } from '@/lib/http/route';

export const POST = route(
  {
    auth: 'none',
    body: confirmEmailAddressBody,
    doc: {
      operationId: 'confirmEmailAddress',
      summary: 'Confirm a forwarding email address',
      description:
        'What the link emailed to an added address does (the link opens the page `/confirm-email`, which calls the same function). Confirming again answers the same; an unknown token is 404, an expired one 410 CODE_EXPIRED.',
      tags: ['Inbound automation'],
      response: { description: 'Confirmed.', schema: confirmedEmailAddressSchema },
      errors: ['NOT_FOUND', 'CODE_EXPIRED'],
    },
  },
  async ({ db, body }) => confirmEmailAddress(db, body.token),
);
