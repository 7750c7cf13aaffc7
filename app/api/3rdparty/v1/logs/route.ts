import { listLogs } from '@/lib/protocols/smsgate-api/logs';
import { integratorRoute } from '@/lib/protocols/smsgate-api/route';
import { logEntrySchema, logsQuery, MAX_LOG_ENTRIES } from '@/lib/protocols/smsgate-api/schemas';
import { z } from '@/lib/zod';

export const GET = integratorRoute(
  {
    auth: 'integrator',
    query: logsQuery,
    doc: {
      operationId: 'smsgateLogs',
      summary: 'Message log (SMSGate)',
      description: `The account’s message history as log entries (module \`messages\`; ERROR for failed and expired, WARN for rerouted and retrying, INFO otherwise), oldest first: the newest ${MAX_LOG_ENTRIES} between \`from\` and \`to\` (default: the last day). Phones do not upload their own logs to Simgate.`,
      tags: ['SMSGate integrator API'],
      response: { description: 'Log entries.', schema: z.array(logEntrySchema) },
    },
  },
  async ({ db, principal, query }) => listLogs(db, principal.accountId, query),
);
