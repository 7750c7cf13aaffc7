import { getEmailAddress, removeEmailAddress } from '@/lib/email/addresses';
import { emailAddressParams, emailAddressSchema } from '@/lib/email/schemas';
import { route } from '@/lib/http/route';

export const GET = route(
  {
    auth: 'account',
    params: emailAddressParams,
    doc: {
      operationId: 'getEmailAddress',
      summary: 'Get a forwarding email address',
      tags: ['Inbound automation'],
      response: { description: 'The address.', schema: emailAddressSchema },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, params }) => getEmailAddress(db, principal.accountId, params.id),
);

export const DELETE = route(
  {
    auth: 'account',
    params: emailAddressParams,
    doc: {
      operationId: 'removeEmailAddress',
      summary: 'Remove a forwarding email address',
      description:
        'Rules that forward to it stay; their forwards are skipped (`email_not_confirmed` in the inbound message’s `automation`) until it is added and confirmed again.',
      tags: ['Inbound automation'],
      response: { description: 'Removed.' },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, params }) => {
    await removeEmailAddress(db, principal.accountId, params.id);
  },
);
