import { addEmailAddress, listEmailAddresses } from '@/lib/email/addresses';
import { addEmailAddressBody, emailAddressListSchema, emailAddressSchema } from '@/lib/email/schemas';
import { publicOrigin } from '@/lib/http/origin';
import { json, route } from '@/lib/http/route';

export const GET = route(
  {
    auth: 'account',
    doc: {
      operationId: 'listEmailAddresses',
      summary: 'List forwarding email addresses',
      description:
        'The addresses `forward_email` actions may send to besides the account’s own email (`account_email`, always allowed), oldest first, at most 20.',
      tags: ['Inbound automation'],
      response: { description: 'The addresses.', schema: emailAddressListSchema },
    },
  },
  async ({ db, principal }) => listEmailAddresses(db, principal.accountId),
);

export const POST = route(
  {
    auth: 'account',
    body: addEmailAddressBody,
    status: 201,
    doc: {
      operationId: 'addEmailAddress',
      summary: 'Add a forwarding email address',
      description:
        'Emails the address a confirmation link, valid 24 hours; forwards go to it once the link is opened. 201 when added; 200 for an address already there (a pending one gets a fresh link, and the old one stops working). At most 10 confirmation emails per account per hour (429 RATE_LIMITED).',
      tags: ['Inbound automation'],
      response: { description: 'The address, pending.', schema: emailAddressSchema },
      otherResponses: [{ status: 200, description: 'The address was already there.', schema: emailAddressSchema }],
      errors: ['RATE_LIMITED'],
    },
  },
  async ({ db, req, principal, body }) => {
    const { created, address } = await addEmailAddress(db, principal.accountId, body.email, {
      origin: publicOrigin(req),
    });
    return json(address, created ? 201 : 200);
  },
);
