import { route } from '@/lib/http/route';
import { REPORT_STATUS } from '@/lib/messages/docs';
import { reportMessageStatus } from '@/lib/messages/report-status';
import { messageIdParams, messageSchema, statusReportBody } from '@/lib/messages/schemas';

export const POST = route(
  {
    auth: 'device',
    params: messageIdParams,
    body: statusReportBody,
    doc: {
      operationId: 'reportMessageStatus',
      summary: 'Report what became of a message',
      description: REPORT_STATUS,
      tags: ['Phone API'],
      response: { description: 'The message.', schema: messageSchema },
      errors: ['DEVICE_NOT_ACTIVATED', 'FORBIDDEN', 'NOT_FOUND', 'INVALID_TRANSITION'],
    },
  },
  async ({ db, principal, params, body }) =>
    reportMessageStatus(db, principal, params.id, {
      status: body.status,
      error: body.error,
      errorCode: body.error_code,
    }),
);
