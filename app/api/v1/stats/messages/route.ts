import { route } from '@/lib/http/route';
import { messageStats } from '@/lib/stats/messages';
import { messageStatsSchema } from '@/lib/stats/schemas';

export const GET = route(
  {
    auth: 'account',
    doc: {
      operationId: 'getMessageStats',
      summary: 'Message counts for today and the last 30 days',
      description:
        'What the dashboard’s overview draws: totals for today (UTC) and the last 30 days (sent, delivered, failed, received, credits used) and the daily volume by the state each message is in now. "Failed" counts failed, expired and cancelled messages.',
      tags: ['Messages'],
      response: { description: 'The figures.', schema: messageStatsSchema },
    },
  },
  async ({ db, principal }) => messageStats(db, principal.accountId),
);
