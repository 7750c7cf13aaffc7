import { route } from '@/lib/http/route';
import { phoneIdParams } from '@/lib/phones/schemas';
import { INBOX_EXPORT_DOC } from '@/lib/protocols/smsgate-app/docs';
import { listInboxExports, requestInboxExport } from '@/lib/protocols/smsgate-app/inbox-export';
import { inboxExportBody, inboxExportSchema } from '@/lib/protocols/smsgate-app/schemas';
import { z } from '@/lib/zod';

export const POST = route(
  {
    auth: 'account',
    params: phoneIdParams,
    body: inboxExportBody,
    status: 202,
    doc: {
      operationId: 'requestInboxExport',
      summary: 'Recover messages received while disconnected',
      description: INBOX_EXPORT_DOC,
      tags: ['Phones', 'SMSGate app (mobile)'],
      response: {
        description: 'The request, sent to the phone; its counts grow as the phone answers.',
        schema: inboxExportSchema,
      },
      errors: ['NOT_FOUND', 'PHONE_NOT_CONNECTED'],
    },
  },
  async ({ db, principal, params, body }) =>
    requestInboxExport(db, principal.accountId, params.id, {
      since: new Date(body.since),
      until: new Date(body.until),
      messageTypes: body.message_types,
    }),
);

export const GET = route(
  {
    auth: 'account',
    params: phoneIdParams,
    doc: {
      operationId: 'listInboxExports',
      summary: 'The phone’s latest inbox export requests',
      description: 'The phone’s last ten inbox export requests, newest first, each with what came back.',
      tags: ['Phones', 'SMSGate app (mobile)'],
      response: { description: 'The requests.', schema: z.array(inboxExportSchema) },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, params }) => listInboxExports(db, principal.accountId, params.id),
);
