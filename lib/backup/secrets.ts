import { isNotNull } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Executor } from '@/db';
import { accounts, devices, webhooks } from '@/db/schema';
import { decryptSecret } from '@/lib/crypto/secret-box';
import { DEVICE_SIGNING_KEY_PURPOSE } from '@/lib/devices/pairing';
import { unsealSigningKey } from '@/lib/protocols/smsgate-api/signing-key';
import { unsealAuthToken } from '@/lib/protocols/twilio/credentials';
import { unsealWebhookSecret } from '@/lib/webhooks/signing';

/**
 * Every column sealed with a key derived from APP_SECRET (lib/crypto/secret-box.ts), with how to open
 * it. A restored database is only as useful as these are readable: a restore under another
 * APP_SECRET says which ones are not. (test/backup-secrets.test.ts checks that every `*_encrypted`
 * column of the schema is listed.)
 */
export const SEALED_COLUMNS: Array<{
  table: PgTable;
  column: PgColumn;
  what: string;
  open: (sealed: string) => string;
}> = [
  { table: webhooks, column: webhooks.secretEncrypted, what: 'webhook secrets', open: unsealWebhookSecret },
  {
    table: webhooks,
    column: webhooks.previousSecretEncrypted,
    what: 'previous webhook secrets (rotation grace)',
    open: unsealWebhookSecret,
  },
  {
    table: accounts,
    column: accounts.callbackSecretEncrypted,
    what: 'status callback secrets',
    open: unsealWebhookSecret,
  },
  {
    table: accounts,
    column: accounts.smsgateSigningKeyEncrypted,
    what: 'SMSGate webhook signing keys',
    open: unsealSigningKey,
  },
  {
    table: accounts,
    column: accounts.twilioAuthTokenEncrypted,
    what: 'Twilio Auth Tokens',
    open: unsealAuthToken,
  },
  {
    table: devices,
    column: devices.signingKeyEncrypted,
    what: 'device signing keys',
    open: (sealed) => decryptSecret(sealed, DEVICE_SIGNING_KEY_PURPOSE),
  },
];

export type SecretsCheck = Array<{ what: string; stored: number; unreadable: number }>;

/** How many of each sealed column's values this process's APP_SECRET opens. */
export async function checkSealedSecrets(executor: Executor): Promise<SecretsCheck> {
  const report: SecretsCheck = [];
  for (const { table, column, what, open } of SEALED_COLUMNS) {
    const rows = await executor.select({ sealed: column }).from(table).where(isNotNull(column));
    let unreadable = 0;
    for (const { sealed } of rows) {
      try {
        open(sealed as string);
      } catch {
        unreadable += 1;
      }
    }
    report.push({ what, stored: rows.length, unreadable });
  }
  return report;
}

/** The lines an operator reads about unreadable secrets (none when all open). */
export function describeUnreadable(check: SecretsCheck): string[] {
  return check
    .filter((entry) => entry.unreadable > 0)
    .map(
      (entry) =>
        `${entry.unreadable} of ${entry.stored} ${entry.what} cannot be decrypted with this APP_SECRET: ` +
        'set the APP_SECRET the backup was taken under (local mode: its DATA_DIR/secret file), or re-create them.',
    );
}
