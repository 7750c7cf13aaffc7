// `npm run ops -- <command>`: operator commands against the configured database
// (DATABASE_URL, or the embedded database in DATA_DIR / ./.data). The work lives in lib/ops.
import { Command } from 'commander';
import { closeDatabase, type Database, getDatabase, locateDatabase } from '@/db';
import { backupDatabase } from '@/lib/backup/backup';
import { restoreDatabase } from '@/lib/backup/restore';
import { describeUnreadable } from '@/lib/backup/secrets';
import { assertConfig, config } from '@/lib/config';
import { DomainError } from '@/lib/errors';
import { setPlan } from '@/lib/ops/account-plan';
import { listAccounts, showAccount } from '@/lib/ops/accounts';
// A restore checks the adapters' sealed columns too.
import '@/lib/protocols/register';
import { revokeDevice } from '@/lib/ops/devices';
import { distributeTables } from '@/lib/ops/distribute';
import { formatAccount, formatAccounts } from '@/lib/ops/format';
import { grantCredits } from '@/lib/ops/grant';

const program = new Command('ops')
  .description('Simgate operator commands')
  .option('--json', 'print JSON instead of text')
  .showHelpAfterError();

type Printable = { json: unknown; text: string };

/** Opens the database, runs one command, prints its result, closes; bad input exits 1. */
function action<A extends unknown[]>(run: (db: Database, ...args: A) => Promise<Printable>) {
  return async (...args: A) => {
    try {
      const { db } = await getDatabase();
      const result = await run(db, ...args);
      console.log(program.opts().json ? JSON.stringify(result.json, null, 2) : result.text);
    } catch (error) {
      console.error(`error: ${error instanceof DomainError ? error.detail : (error as Error).message}`);
      process.exitCode = 1;
    } finally {
      await closeDatabase();
    }
  };
}

program
  .command('accounts')
  .alias('list-accounts')
  .description('list accounts: email, plan, phones, groups, total credits')
  .action(
    action(async (db) => {
      const accounts = await listAccounts(db);
      return { json: accounts, text: formatAccounts(accounts) };
    }),
  );

program
  .command('show')
  .alias('show-account')
  .argument('<account>', 'account id or email')
  .description('show an account: groups with balances, phones, devices, API keys (never their secrets)')
  .action(
    action(async (db, reference: string) => {
      const details = await showAccount(db, reference);
      return { json: details, text: formatAccount(details) };
    }),
  );

program
  .command('grant')
  .description('grant credits to a phone group (an operator_grant in the ledger)')
  .requiredOption('--group <id>', 'phone group id')
  .requiredOption('--amount <n>', 'credits to add, 1 to 1,000,000,000')
  .option('--note <text>', 'why, kept in the ledger')
  .action(
    action(async (db, options: { group: string; amount: string; note?: string }) => {
      const granted = await grantCredits(db, {
        groupId: Number(options.group),
        amount: Number(options.amount),
        note: options.note,
      });
      return {
        json: granted,
        text: `Granted ${granted.amount} credit(s) to group ${granted.groupId} (${granted.groupName}); balance now ${granted.balanceAfter}.`,
      };
    }),
  );

program
  .command('set-plan')
  .argument('<account>', 'account id or email')
  .argument('<plan>', 'free or pro')
  .description("set an account's plan")
  .action(
    action(async (db, reference: string, plan: string) => {
      const changed = await setPlan(db, reference, plan);
      return { json: changed, text: `${changed.email}: plan ${changed.previousPlan} -> ${changed.plan}.` };
    }),
  );

program
  .command('revoke-device')
  .argument('<device_id>', 'device id')
  .description('revoke a device: its key stops working and its phone loses the device link')
  .action(
    action(async (db, deviceId: string) => {
      const revoked = await revokeDevice(db, deviceId);
      const unlinked = revoked.unlinkedPhones.length ? ` Unlinked from ${revoked.unlinkedPhones.join(', ')}.` : '';
      return {
        json: revoked,
        text: `${revoked.alreadyRevoked ? 'Device was already revoked' : 'Revoked device'} ${revoked.deviceId} (${revoked.phoneNumber}).${unlinked}`,
      };
    }),
  );

program
  .command('distribute')
  .description(
    "on a Citus coordinator, after db:migrate: the instance's tables as reference tables, every account table distributed by account_id (idempotent)",
  )
  .action(
    action(async (db) => {
      const report = await distributeTables(db);
      const done = report.referenced.length + report.distributed.length;
      return {
        json: report,
        text:
          done === 0
            ? `Nothing to do: ${report.already.length} table(s) already reference or distributed tables.`
            : `Made ${report.referenced.length} reference table(s) and distributed ${report.distributed.length} account table(s) by account_id (${report.foreignKeys} foreign key(s) dropped and added again).`,
      };
    }),
  );

/** Runs a command that opens the database its own way (backup, restore); failures exit 1. */
function standalone<A extends unknown[]>(run: (...args: A) => Promise<Printable & { exitCode?: number }>) {
  return async (...args: A) => {
    try {
      const result = await run(...args);
      console.log(program.opts().json ? JSON.stringify(result.json, null, 2) : result.text);
      if (result.exitCode) process.exitCode = result.exitCode;
    } catch (error) {
      console.error(`error: ${(error as Error).message}`);
      process.exitCode = 1;
    }
  };
}

program
  .command('backup')
  .argument('<file>', 'where to write the backup')
  .description(
    'back up the database while the server runs: pg_dump on PostgreSQL; on the embedded database the running server takes it (or this command, when none runs)',
  )
  .action(
    standalone(async (file: string) => {
      const result = await backupDatabase(config.database, file);
      const schema = result.header.schema.tag ?? 'no migrations';
      return {
        json: result,
        text: `Backed up the ${result.header.database === 'pglite' ? 'embedded' : 'PostgreSQL'} database (schema ${schema}) to ${file}: ${result.bytes} bytes, taken by ${result.via}.`,
      };
    }),
  );

program
  .command('restore')
  .argument('<file>', 'a backup made by `backup`')
  .option('--force', 'overwrite a database that holds data')
  .description(
    'restore a backup (stop every instance first), all or nothing: refuses a damaged file, a database with data unless --force, and a backup from newer code; migrates an older one forward',
  )
  .action(
    standalone(async (file: string, options: { force?: boolean }) => {
      const result = await restoreDatabase(config.database, file, options);
      const unreadable = describeUnreadable(result.secrets);
      const lines = [
        `Restored ${file} (taken ${result.header.createdAt} by Simgate ${result.header.appVersion}, schema ${result.header.schema.tag ?? 'empty'})${result.replaced ? ', replacing the data that was there' : ''}.`,
        result.schema.migratedForward
          ? `Migrated forward to this code's schema (${result.schema.tag}).`
          : `Schema ${result.schema.tag}: no migration needed.`,
        ...unreadable.map((line) => `warning: ${line}`),
      ];
      return { json: result, text: lines.join('\n'), exitCode: unreadable.length > 0 ? 2 : 0 };
    }),
  );

try {
  assertConfig();
} catch (error) {
  console.error(`error: ${(error as Error).message}`);
  process.exit(1);
}
locateDatabase(config.database);
await program.parseAsync();
