import { PULL_MESSAGES, REPORT_APP_STATES } from '@/lib/protocols/smsgate-app/docs';
import { applyAppReports, pullForApp } from '@/lib/protocols/smsgate-app/messages';
import { mobileRoute } from '@/lib/protocols/smsgate-app/route';
import { appMessage, pullQuery, stateReport, stateReportsBody } from '@/lib/protocols/smsgate-app/schemas';
import { z } from '@/lib/zod';

export const GET = mobileRoute(
  {
    auth: 'device',
    query: pullQuery,
    doc: {
      operationId: 'pullAppMessages',
      summary: 'Messages for the phone to send',
      description: PULL_MESSAGES,
      tags: ['SMSGate app (mobile)'],
      response: { description: 'The messages, `[]` when none.', schema: z.array(appMessage) },
    },
  },
  async ({ db, principal, query }) => pullForApp(db, principal, query.order),
);

export const PATCH = mobileRoute(
  {
    auth: 'device',
    body: stateReportsBody,
    doc: {
      operationId: 'reportAppMessageStates',
      summary: 'What became of messages',
      description: REPORT_APP_STATES,
      tags: ['SMSGate app (mobile)'],
      response: { description: 'Applied.' },
      // The body is validated item by item (a malformed one is skipped), so its items are only referenced.
      components: { SmsGateMessageState: stateReport },
    },
  },
  async ({ db, principal, body }) => {
    await applyAppReports(db, principal, body);
  },
);
