import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { sql } from 'drizzle-orm';
import { expect, inject, it } from 'vitest';
import { type Database, type DatabaseHandle, openPglite, queryRows } from '@/db';
import { openTestDatabase, testDatabaseUrl } from './database';
import { createTestAccount, type TestAccount } from './fixtures';

/**
 * A bulk is one transaction: a server killed (SIGKILL) while a 1,000-recipient bulk is being
 * written leaves, after restart, the whole bulk and its charge or neither. Runs on the database
 * of the run: PGlite on a real data folder (which must also reopen after the kill), or Postgres.
 */

const ROUNDS = 3;
const writer = path.join(import.meta.dirname, 'fixtures', 'crash', 'bulk-writer.ts');

type Target = {
  /** What the writer opens: the PGlite folder or the Postgres URL. */
  arg: string;
  /** Opens the database as a restarted server would (Postgres: the test's own connection). */
  open: () => Promise<DatabaseHandle>;
  /** Lets the writer have the database (PGlite allows one process per folder). */
  release: (handle: DatabaseHandle) => Promise<void>;
  cleanup: () => Promise<void>;
};

async function crashTarget(): Promise<Target> {
  const template = inject('testTemplate');
  const url = testDatabaseUrl();
  if (url) {
    const database = await openTestDatabase(template);
    const own = new URL(url);
    own.pathname = `/${database.name}`;
    return { arg: own.toString(), open: async () => database, release: async () => {}, cleanup: database.close };
  }
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-crash-'));
  const seeded = await openPglite(folder, { loadDataDir: new Blob([fs.readFileSync(template.pglite)]) });
  await seeded.close();
  return {
    arg: folder,
    open: () => openPglite(folder),
    release: (handle) => handle.close(),
    cleanup: async () => fs.rmSync(folder, { recursive: true, force: true }),
  };
}

/** Runs the writer, kills it with SIGKILL a random moment into a bulk; answers the bulks it saw commit. */
async function writeAndKill(target: Target, account: TestAccount): Promise<string[]> {
  // Node itself with tsx's loader (not the tsx wrapper, which would survive as a parent of the real process).
  const child = spawn(process.execPath, ['--import', 'tsx', writer, target.arg, account.accountId, account.phone], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, LOG_LEVEL: 'silent' },
  });
  const exited = new Promise<NodeJS.Signals | null>((resolve) =>
    child.once('exit', (_code, signal) => resolve(signal)),
  );
  const committed: string[] = [];
  let lastCommit = 0;
  let bulkMs = 0;
  for await (const line of readline.createInterface({ input: child.stdout })) {
    if (!line.startsWith('committed ')) continue;
    committed.push(line.slice('committed '.length));
    const now = performance.now();
    if (lastCommit > 0) {
      bulkMs = now - lastCommit;
      break;
    }
    lastCommit = now;
  }
  // Somewhere inside the next bulk (one bulk took `bulkMs`).
  await new Promise((resolve) => setTimeout(resolve, Math.random() * bulkMs * 0.9));
  child.kill('SIGKILL');
  expect(await exited).toBe('SIGKILL');
  return committed;
}

type Invariants = { incompleteBulks: number; messages: number; charges: number; orphanCharges: number; drift: number };

async function invariants(db: Database, account: TestAccount): Promise<Invariants> {
  const [row] = await queryRows<Record<keyof Invariants, number>>(
    db,
    sql`
      select
        (select count(*)::int from bulk_messages b
          where b.account_id = ${account.accountId}
            and b.recipient_count <> (select count(*) from messages m where m.bulk_id = b.id)) as "incompleteBulks",
        (select count(*)::int from messages where account_id = ${account.accountId}) as messages,
        (select count(*)::int from credit_ledger
          where group_id = ${account.defaultGroupId} and kind = 'message_charge') as charges,
        (select count(*)::int from credit_ledger l
          where l.group_id = ${account.defaultGroupId} and l.kind = 'message_charge'
            and not exists (select 1 from messages m where m.id = l.message_id)) as "orphanCharges",
        (select g.balance - coalesce((select sum(amount) from credit_ledger where group_id = g.id), 0)
          from phone_groups g where g.id = ${account.defaultGroupId})::int as drift
    `,
  );
  return Object.fromEntries(Object.entries(row!).map(([key, value]) => [key, Number(value)])) as Invariants;
}

it('a bulk being written when the server is killed exists whole with its charge after restart, or not at all', {
  timeout: 120_000,
}, async () => {
  const target = await crashTarget();
  try {
    let handle = await target.open();
    const account = await createTestAccount(handle.db, { credits: 1_000_000 });
    const { drift } = await invariants(handle.db, account);
    const seen = new Set<string>();
    for (let round = 0; round < ROUNDS; round++) {
      await target.release(handle);
      for (const id of await writeAndKill(target, account)) seen.add(id);
      handle = await target.open();
      const bulkIds = await queryRows<{ id: string }>(
        handle.db,
        sql`select id from bulk_messages where account_id = ${account.accountId}`,
      );
      expect(bulkIds.map((row) => row.id)).toEqual(expect.arrayContaining([...seen]));
      const after = await invariants(handle.db, account);
      expect(after).toEqual({
        incompleteBulks: 0,
        messages: bulkIds.length * 1000,
        charges: bulkIds.length * 1000,
        orphanCharges: 0,
        drift,
      });
    }
    await target.release(handle);
  } finally {
    await target.cleanup();
  }
});
