import { applyAppReports, pullForApp } from '@/lib/protocols/smsgate-app/messages';
import { mobileRoute } from '@/lib/protocols/smsgate-app/route';
import { pullQuery, stateReportsBody } from '@/lib/protocols/smsgate-app/schemas';

export const GET = mobileRoute({ auth: 'device', query: pullQuery }, async ({ db, principal, query }) =>
  pullForApp(db, principal, query.order),
);

export const PATCH = mobileRoute({ auth: 'device', body: stateReportsBody }, async ({ db, principal, body }) => {
  await applyAppReports(db, principal, body);
});
