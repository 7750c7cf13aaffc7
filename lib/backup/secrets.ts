import { isNotNull } from 'drizzle-orm';
import { getTableConfig, type PgColumn, type PgTable } from 'drizzle-orm/pg-core';
import type { Executor } from '@/db';
import { accounts, devices, members, webhooks } from '@/db/schema';
import { decryptSecret } from '@/lib/crypto/secret-box';
import { DEVICE_SIGNING_KEY_PURPOSE } from '@/lib/devices/pairing';
import { unsealTotpSecret } from '@/lib/members/two-factor';
import { registry } from '@/lib/registry';
import { unsealWebhookSecret } from '@/lib/webhooks/signing';

type Opener = (sealed: string) => string;

/**
 * How to open the columns an adapter seals under its own key purpose, by `table.column`: only the
 * adapter knows the purpose, and registers its opener (lib/protocols/register.ts).
 */
const adapterOpeners = registry<string, Opener>('sealed column opener');

export function registerSealedColumnOpener(name: `${string}.${string}`, open: Opener): void {
  adapterOpeners.register(name, open);
}

/**
 * Every column sealed with a key derived from APP_SECRET (lib/crypto/secret-box.ts), with how to open
 * it (`adapter`: the adapter that seals it registers the opener). A restored database is only as
 * useful as these are readable: a restore under another APP_SECRET says which ones are not.
 * (test/backup-secrets.test.ts checks that every `*_encrypted` column of the schema is listed.)
 */
export const SEALED_COLUMNS: Array<{
  table: PgTable;
  column: PgColumn;
  what: string;
  open: Opener | 'adapter';
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
    open: 'adapter',
  },
  {
    table: accounts,
    column: accounts.twilioAuthTokenEncrypted,
    what: 'Twilio Auth Tokens',
    open: 'adapter',
  },
  {
    table: devices,
    column: devices.signingKeyEncrypted,
    what: 'device signing keys',
    open: (sealed) => decryptSecret(sealed, DEVICE_SIGNING_KEY_PURPOSE),
  },
  {
    table: members,
    column: members.totpSecretEncrypted,
    what: 'two-factor authenticator secrets',
    open: unsealTotpSecret,
  },
];

/** `table.column`, how an adapter names the column it registers an opener for. */
export function sealedColumnName(table: PgTable, column: PgColumn): string {
  return `${getTableConfig(table).name}.${column.name}`;
}

/** The sealed columns whose adapter registered no opener (test/protocol-registries.test.ts: none). */
export function sealedColumnsWithoutOpener(): string[] {
  return SEALED_COLUMNS.filter(
    ({ table, column, open }) => open === 'adapter' && !adapterOpeners.find(sealedColumnName(table, column)),
  ).map(({ table, column }) => sealedColumnName(table, column));
}

export type SecretsCheck = Array<{ what: string; stored: number; unreadable: number }>;

/** How many of each sealed column's values this process's APP_SECRET opens. */
export async function checkSealedSecrets(executor: Executor): Promise<SecretsCheck> {
  const report: SecretsCheck = [];
  for (const { table, column, what, open: opener } of SEALED_COLUMNS) {
    const open = opener === 'adapter' ? adapterOpeners.get(sealedColumnName(table, column)) : opener;
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
