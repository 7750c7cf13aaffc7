import { listAlerts } from '@/lib/alerts/list';
import { alertQuery, alertSchema } from '@/lib/alerts/schemas';
import { route } from '@/lib/http/route';
import { pageOf } from '@/lib/openapi/define';

export const GET = route(
  {
    auth: 'account',
    query: alertQuery,
    doc: {
      operationId: 'listAlerts',
      summary: 'List the account’s alerts',
      description:
        'Newest raised first. An alert is raised once when its condition starts (Settings → Alerts, GET /api/v1/settings/alerts) and resolved once when it ends; an open alert has `resolved_at: null`. `state=open` lists only those.',
      tags: ['Alerts'],
      response: { description: 'A page of alerts.', schema: pageOf(alertSchema) },
    },
  },
  async ({ db, principal, query }) => listAlerts(db, principal.accountId, query),
);
