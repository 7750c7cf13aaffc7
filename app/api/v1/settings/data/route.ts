import { route } from '@/lib/http/route';
import { dataSettingsBody, dataSettingsSchema } from '@/lib/retention/schemas';
import { accountDataSettings, updateAccountDataSettings } from '@/lib/retention/settings';

export const GET = route(
  {
    auth: 'account',
    doc: {
      operationId: 'getDataSettings',
      summary: 'Read how long the account’s data is kept',
      description:
        'What the instance keeps (message content, webhook delivery log, heartbeats, audit log), the account’s own choices for message content, and what applies. Past its days a final message keeps its row, counts and ledger rows; its text is hashed or emptied and `content_purged_at` set.',
      tags: ['Data retention'],
      response: { description: 'The settings.', schema: dataSettingsSchema },
    },
  },
  async ({ db, principal }) => accountDataSettings(db, principal.accountId),
);

export const PATCH = route(
  {
    auth: 'account',
    body: dataSettingsBody,
    doc: {
      operationId: 'updateDataSettings',
      summary: 'Change how long the account keeps message content',
      description:
        'Only the keys given change; `null` follows the instance. An account may keep less than the instance, never more: more days than the instance keeps, `hash` where the instance deletes, or `hash_counterpart: false` where the instance hashes answers 400 naming the field. The next retention sweep (RETENTION_SWEEP_INTERVAL_S) purges what the new setting makes old; that cannot be undone.',
      tags: ['Data retention'],
      response: { description: 'The settings.', schema: dataSettingsSchema },
    },
  },
  async ({ db, principal, body }) => updateAccountDataSettings(db, principal.accountId, body),
);
