import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { eq, sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DatabaseHandle,
  embeddedFolder,
  MIGRATIONS_FOLDER,
  openPglite,
  openPostgres,
  runMigrations,
  setDatabase,
} from '@/db';
import { creditLedger, messages, phoneGroups, webhooks } from '@/db/schema';
import { codeSchemaVersion, databaseSchemaVersion, journal } from '@/db/schema-version';
import { clearKeyCache, principalForKey } from '@/lib/auth/key-lookup';
import { backupDatabase } from '@/lib/backup/backup';
import { sendMessage } from '@/lib/messages/send';
import { grantCredits } from '@/lib/ops/grant';
import { rotateCallbackSecret } from '@/lib/webhooks/callbacks';
import { generateWebhookSecret, sealWebhookSecret, unsealWebhookSecret } from '@/lib/webhooks/signing';
import { testDatabaseUrl } from './database';
import { addTestPhone, createTestAccount, testNumber } from './fixtures';

/**
 * `npm run ops -- backup` and `restore` on the database the tests run on (the embedded one by
 * default, PostgreSQL with TEST_DATABASE_URL): each source and restore target is a database of its
 * own (a data folder, or a scratch database on the server).
 */

const SECRET = 'backup-test-secret-0123456789abcdefghijklmnop';
process.env.APP_SECRET = SECRET;
const run = promisify(execFile);
const TSX = path.join(process.cwd(), 'node_modules', '.bin', 'tsx');
const serverUrl = testDatabaseUrl();
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-backup-'));

type Place = { env: Record<string, string>; open: () => Promise<DatabaseHandle>; drop: () => Promise<void> };
const places: Place[] = [];

/** A new, empty database of the kind under test, and the environment that points the ops command at it. */
async function newPlace(): Promise<Place> {
  let place: Place;
  if (serverUrl) {
    const name = `simgate_backup_${randomBytes(4).toString('hex')}`;
    const admin = postgres(serverUrl.toString(), { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${name}`);
    await admin.end();
    const url = new URL(serverUrl);
    url.pathname = `/${name}`;
    place = {
      env: { DATABASE_URL: url.toString(), APP_SECRET: SECRET, APP_URL: 'https://sms.example.test' },
      open: async () => openPostgres(url.toString(), { max: 2 }),
      drop: async () => {
        const cleaner = postgres(serverUrl.toString(), { max: 1, onnotice: () => {} });
        await cleaner.unsafe(`drop database if exists ${name} with (force)`);
        await cleaner.end();
      },
    };
  } else {
    const dataDir = fs.mkdtempSync(path.join(folder, 'data-'));
    place = {
      env: { DATA_DIR: dataDir, DATABASE_URL: '', APP_SECRET: SECRET },
      open: () => openPglite(embeddedFolder(dataDir)),
      drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }),
    };
  }
  places.push(place);
  return place;
}

async function withOpen<T>(place: Place, work: (handle: DatabaseHandle) => Promise<T>): Promise<T> {
  const handle = await place.open();
  try {
    return await work(handle);
  } finally {
    await handle.close();
  }
}

/** `npm run ops -- …` as an operator runs it, against `place`. */
async function ops(place: Place, args: string[], env: Record<string, string> = {}) {
  try {
    const { stdout, stderr } = await run(TSX, ['scripts/ops.ts', ...args], {
      env: { ...process.env, ...place.env, ...env },
      cwd: process.cwd(),
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/** What must come back identical. */
async function snapshot(handle: DatabaseHandle) {
  const { db } = handle;
  return {
    balances: await db
      .select({ id: phoneGroups.id, balance: phoneGroups.balance })
      .from(phoneGroups)
      .orderBy(phoneGroups.id),
    messages: await db.select().from(messages).orderBy(messages.id),
    ledger: await db.select().from(creditLedger).orderBy(creditLedger.id),
  };
}

type Seeded = { apiKey: string; deviceKey: string; webhookSecret: string; webhookId: string };

/** Accounts, phones, messages in several states, ledger rows, a webhook and a callback secret (sealed), API keys. */
async function seed(handle: DatabaseHandle): Promise<Seeded> {
  const { db } = handle;
  const account = await createTestAccount(db, { credits: 50 });
  await addTestPhone(db, account, { online: true });
  const other = await createTestAccount(db, { plan: 'pro' });
  await grantCredits(db, { groupId: other.defaultGroupId, amount: 75, note: 'before the backup' });
  const sent = [];
  for (let i = 0; i < 4; i++) {
    sent.push(
      await sendMessage(db, account.accountId, { from: account.phone, to: testNumber(), content: `hello ${i}` }),
    );
  }
  for (const [index, status] of (['sent', 'delivered', 'failed'] as const).entries()) {
    await db.update(messages).set({ status }).where(eq(messages.id, sent[index]!.id));
  }
  const webhookSecret = generateWebhookSecret();
  const [webhook] = await db
    .insert(webhooks)
    .values({
      accountId: account.accountId,
      url: 'https://hooks.example.test/simgate',
      events: ['message.sent'],
      secretEncrypted: sealWebhookSecret(webhookSecret),
    })
    .returning({ id: webhooks.id });
  await rotateCallbackSecret(db, other.accountId);
  return { apiKey: account.apiKey, deviceKey: account.deviceKey, webhookSecret, webhookId: webhook!.id };
}

let source: Place;
let seeded: Seeded;
let before: Awaited<ReturnType<typeof snapshot>>;
const backupFile = path.join(folder, 'simgate.backup');

beforeAll(async () => {
  source = await newPlace();
  await withOpen(source, async (handle) => {
    await runMigrations(handle);
    seeded = await seed(handle);
    before = await snapshot(handle);
  });
}, 120_000);

afterAll(async () => {
  for (const place of places) await place.drop();
  fs.rmSync(folder, { recursive: true, force: true });
});

describe(`backup and restore (${serverUrl ? 'PostgreSQL' : 'embedded database'})`, () => {
  it('restores balances, messages and ledger identically; keys authenticate, secrets decrypt', async () => {
    const backedUp = await ops(source, ['backup', backupFile]);
    expect(backedUp.stderr).toBe('');
    expect(backedUp.code).toBe(0);
    expect(backedUp.stdout).toContain(`schema ${codeSchemaVersion(MIGRATIONS_FOLDER).tag}`);

    const target = await newPlace();
    const restored = await ops(target, ['restore', backupFile]);
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);
    expect(restored.stdout).toContain('no migration needed');

    await withOpen(target, async (handle) => {
      expect(await snapshot(handle)).toEqual(before);
      expect(before.messages.map((message) => message.status).sort()).toEqual([
        'delivered',
        'failed',
        'queued',
        'sent',
      ]);
      expect(before.ledger.length).toBeGreaterThan(4);
      clearKeyCache();
      setDatabase(handle);
      try {
        expect(await principalForKey(handle.db, seeded.apiKey)).toMatchObject({ kind: 'account' });
        expect(await principalForKey(handle.db, seeded.deviceKey)).not.toBeNull();
      } finally {
        setDatabase(undefined);
      }
      const [webhook] = await handle.db.select().from(webhooks).where(eq(webhooks.id, seeded.webhookId));
      expect(unsealWebhookSecret(webhook!.secretEncrypted)).toBe(seeded.webhookSecret);
    });
  }, 180_000);

  it('refuses to overwrite a database that holds data unless --force', async () => {
    const target = await newPlace();
    expect((await ops(target, ['restore', backupFile])).code).toBe(0);
    await withOpen(target, (handle) => handle.db.execute(sql`update phone_groups set balance = 1`));

    const refused = await ops(target, ['restore', backupFile]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/holds data .*restore refuses to overwrite it.*--force/);

    const forced = await ops(target, ['restore', backupFile, '--force']);
    expect(forced.code).toBe(0);
    expect(forced.stdout).toContain('replacing the data that was there');
    await withOpen(target, async (handle) => expect((await snapshot(handle)).balances).toEqual(before.balances));
  }, 180_000);

  it('says which secrets cannot be read under another APP_SECRET', async () => {
    const target = await newPlace();
    const restored = await ops(target, ['restore', backupFile], {
      APP_SECRET: 'another-secret-0123456789abcdefghijklmnopqrstu',
    });
    expect(restored.code).toBe(2);
    expect(restored.stdout).toContain('warning: 1 of 1 webhook secrets cannot be decrypted with this APP_SECRET');
    expect(restored.stdout).toContain(
      'warning: 1 of 1 status callback secrets cannot be decrypted with this APP_SECRET',
    );
    expect(restored.stdout).not.toContain('device signing keys');
  }, 180_000);

  it('refuses a backup from newer code, naming both versions', async () => {
    const lines = fs.readFileSync(backupFile);
    const first = lines.indexOf(0x0a);
    const second = lines.indexOf(0x0a, first + 1);
    const header = JSON.parse(lines.subarray(first + 1, second).toString());
    header.appVersion = '99.0.0';
    header.schema = { createdAt: Date.now() + 10 ** 10, tag: '0999_from_the_future', appVersion: '99.0.0' };
    const newer = path.join(folder, 'newer.backup');
    fs.writeFileSync(
      newer,
      Buffer.concat([
        lines.subarray(0, first + 1),
        Buffer.from(`${JSON.stringify(header)}\n`),
        lines.subarray(second + 1),
      ]),
    );
    const target = await newPlace();
    const refused = await ops(target, ['restore', newer]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('Simgate 99.0.0, migration 0999_from_the_future');
    expect(refused.stderr).toContain(`this Simgate ${codeSchemaVersion(MIGRATIONS_FOLDER).appVersion}`);
  }, 120_000);

  it('migrates a backup of an older schema forward after restoring it', async () => {
    // A database as the code of three migrations ago left it.
    const entries = journal(MIGRATIONS_FOLDER);
    const older = path.join(folder, 'older-migrations');
    fs.cpSync(MIGRATIONS_FOLDER, older, { recursive: true });
    const journalFile = path.join(older, 'meta', '_journal.json');
    const parsed = JSON.parse(fs.readFileSync(journalFile, 'utf8'));
    parsed.entries = parsed.entries.slice(0, entries.length - 3);
    fs.writeFileSync(journalFile, JSON.stringify(parsed));
    const oldSource = await newPlace();
    await withOpen(oldSource, async (handle) => {
      await runMigrations(handle, older);
      await handle.db.execute(sql`insert into accounts (email) values ('older@example.test')`);
    });
    const oldFile = path.join(folder, 'older.backup');
    const backedUp = await ops(oldSource, ['backup', oldFile]);
    expect(backedUp.code).toBe(0);
    expect(backedUp.stdout).toContain(`schema ${entries.at(-4)!.tag}`);

    const target = await newPlace();
    const restored = await ops(target, ['restore', oldFile]);
    expect(restored.stderr).toBe('');
    expect(restored.stdout).toContain(`Migrated forward to this code's schema (${entries.at(-1)!.tag})`);
    await withOpen(target, async (handle) => {
      const version = await databaseSchemaVersion(handle.db, MIGRATIONS_FOLDER);
      expect(version).toMatchObject({ createdAt: entries.at(-1)!.when, unknown: [] });
      const [row] = await handle.db
        .execute(sql`select count(*)::int as n from accounts`)
        .then((result) => (Array.isArray(result) ? result : (result as { rows: Array<{ n: number }> }).rows));
      expect(row).toMatchObject({ n: 1 });
    });
  }, 240_000);

  it.runIf(serverUrl)(
    'refuses while other connections use the database',
    async () => {
      const target = await newPlace();
      await withOpen(target, async (handle) => {
        await handle.db.execute(sql`select 1`);
        const refused = await ops(target, ['restore', backupFile]);
        expect(refused.code).toBe(1);
        expect(refused.stderr).toMatch(/1 other connection\(s\) to the database: stop every Simgate instance/);
      });
    },
    120_000,
  );

  it.runIf(serverUrl)('names the missing client tool when pg_dump is not on PATH', async () => {
    const empty = fs.mkdtempSync(path.join(folder, 'no-tools-'));
    const path0 = process.env.PATH;
    process.env.PATH = empty;
    try {
      await expect(
        backupDatabase({ url: source.env.DATABASE_URL!, poolSize: 1, pipelineSize: 0 }, path.join(folder, 'x')),
      ).rejects.toThrow(/pg_dump was not found on PATH\. Install PostgreSQL's client tools/);
    } finally {
      process.env.PATH = path0;
    }
  });
});
