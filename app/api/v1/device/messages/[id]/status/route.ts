import { route } from '@/lib/http/route';
import { reportMessageStatus } from '@/lib/messages/report-status';
import { messageIdParams, statusReportBody } from '@/lib/messages/schemas';

export const POST = route(
  { auth: 'device', params: messageIdParams, body: statusReportBody },
  async ({ db, principal, params, body }) => reportMessageStatus(db, principal, params.id, body),
);
