import { execFile, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { eq, sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type DatabaseHandle,
  embeddedFolder,
  MIGRATIONS_FOLDER,
  openPglite,
  openPostgres,
  queryRows,
  runMigrations,
  setDatabase,
} from '@/db';
import { creditLedger, devInbox, messages, phoneGroups, webhooks } from '@/db/schema';
import { codeSchemaVersion, databaseSchemaVersion, journal } from '@/db/schema-version';
import { clearKeyCache, principalForKey } from '@/lib/auth/key-lookup';
import { requestSignInCode } from '@/lib/auth/sign-in';
import { backupDatabase } from '@/lib/backup/backup';
import { libpqConnection, replaceWithDump } from '@/lib/backup/postgres';
import { restoreDatabase } from '@/lib/backup/restore';
import { sendMessage } from '@/lib/messages/send';
import { grantCredits } from '@/lib/ops/grant';
import { rotateCallbackSecret } from '@/lib/webhooks/callbacks';
import { generateWebhookSecret, sealWebhookSecret, unsealWebhookSecret } from '@/lib/webhooks/signing';
import { testDatabaseUrl } from './database';
import { addTestPhone, createTestAccount, devInboxCode, testNumber } from './fixtures';

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

/** The public tables of a database, by name. */
async function tableNames(handle: DatabaseHandle): Promise<string[]> {
  const rows = await queryRows<{ name: string }>(
    handle.db,
    sql`select table_name as name from information_schema.tables
        where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`,
  );
  return rows.map((row) => row.name);
}

/** Everything a failed restore must leave as it was: the tables, row counts, and the rows that matter. */
async function state(handle: DatabaseHandle) {
  const [counts] = await queryRows<{ accounts: number; messages: number }>(
    handle.db,
    sql`select (select count(*)::int from accounts) as accounts, (select count(*)::int from messages) as messages`,
  );
  return { tables: await tableNames(handle), counts, ...(await snapshot(handle)) };
}

/** A backup file's header (parsed) and its dump. */
function splitBackup(file: string): { header: Record<string, unknown>; dump: Buffer } {
  const bytes = fs.readFileSync(file);
  const first = bytes.indexOf(0x0a);
  const second = bytes.indexOf(0x0a, first + 1);
  return { header: JSON.parse(bytes.subarray(first + 1, second).toString()), dump: bytes.subarray(second + 1) };
}

function writeBackup(file: string, header: Record<string, unknown>, dump: Buffer): string {
  fs.writeFileSync(file, Buffer.concat([Buffer.from(`SIMGATE-BACKUP 1\n${JSON.stringify(header)}\n`), dump]));
  return file;
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
      await sendMessage(db, account.accountId, {
        origin: 'api',
        from: account.phone,
        to: testNumber(),
        content: `hello ${i}`,
      }),
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
  // Each test may restore it, whichever runs (the first one takes it again and checks what it prints).
  expect((await ops(source, ['backup', backupFile])).code).toBe(0);
}, 180_000);

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

  it('refuses a backup from newer code, naming both versions, whatever its header says', async () => {
    // A database as a newer release leaves it: a migration this code does not know, and who applied it.
    const future = Date.now() + 10 ** 10;
    const newerSource = await newPlace();
    await withOpen(newerSource, async (handle) => {
      await runMigrations(handle);
      await handle.db.execute(
        sql`insert into drizzle.__drizzle_migrations (hash, created_at) values ('from the future', ${future})`,
      );
      await handle.db.execute(
        sql`insert into drizzle.simgate_schema_versions (created_at, tag, app_version)
            values (${future}, '0999_from_the_future', '99.0.0')`,
      );
    });
    const newer = path.join(folder, 'newer.backup');
    expect((await ops(newerSource, ['backup', newer])).code).toBe(0);
    // The header is plain text: an edited one must not let the newer dump in.
    const edited = path.join(folder, 'newer-edited.backup');
    const { header, dump } = splitBackup(newer);
    writeBackup(edited, { ...header, appVersion: '0.0.1', schema: { createdAt: 0 } }, dump);

    const target = await newPlace();
    for (const file of [newer, edited]) {
      const refused = await ops(target, ['restore', file]);
      expect(refused.code, file).toBe(1);
      expect(refused.stderr).toContain('Simgate 99.0.0, migration 0999_from_the_future');
      expect(refused.stderr).toContain(`this Simgate ${codeSchemaVersion(MIGRATIONS_FOLDER).appVersion}`);
    }
    await withOpen(target, async (handle) => expect(await tableNames(handle)).toEqual([]));
  }, 240_000);

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

  it('a backup cut short, altered, or of another format leaves the database exactly as it was', async () => {
    const target = await newPlace();
    expect((await ops(target, ['restore', backupFile])).code).toBe(0);
    await withOpen(target, (handle) => handle.db.execute(sql`update phone_groups set balance = balance + 7`));
    const kept = await withOpen(target, state);
    expect(kept.counts).toEqual({ accounts: 2, messages: 4 });

    const { header, dump } = splitBackup(backupFile);
    expect(header.dump).toEqual({ bytes: dump.length, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    const { dump: _checksum, ...withoutChecksum } = header;
    const flipped = Buffer.from(dump);
    flipped[Math.floor(dump.length / 2)]! ^= 0x01;
    const bad = (name: string) => path.join(folder, name);
    fs.writeFileSync(bad('notes.txt'), 'my notes\nnot a backup\n');
    const cases: Array<[string, RegExp]> = [
      [
        writeBackup(bad('cut.backup'), header, dump.subarray(0, Math.floor(dump.length / 2))),
        /is damaged: its dump is \d+ bytes, the backup recorded \d+/,
      ],
      [writeBackup(bad('flipped.backup'), header, flipped), /is damaged: its dump does not match the SHA-256/],
      // Backups from before the checksum are read through to their end first.
      [
        writeBackup(bad('cut-unchecked.backup'), withoutChecksum, dump.subarray(0, Math.floor(dump.length / 2))),
        /does not hold a readable (PostgreSQL|embedded-database) dump/,
      ],
      [writeBackup(bad('gzip.backup'), header, zlib.gzipSync('not a database')), /is damaged: its dump is \d+ bytes/],
      [
        writeBackup(bad('gzip-unchecked.backup'), withoutChecksum, zlib.gzipSync('x'.repeat(100_000))),
        /does not hold a readable (PostgreSQL|embedded-database) dump/,
      ],
      [bad('notes.txt'), /is not a Simgate backup/],
    ];
    for (const [file, message] of cases) {
      const refused = await ops(target, ['restore', file, '--force']);
      await withOpen(target, async (handle) => expect(await state(handle), file).toEqual(kept));
      expect(refused.code, file).toBe(1);
      expect(refused.stderr, file).toMatch(message);
    }
  }, 600_000);

  it.runIf(serverUrl)(
    'the switch is one transaction: a dump that ends halfway leaves the database as it was',
    async () => {
      // Past the checks before it (postgres.ts replaceWithDump itself), as a file damaged while read would be.
      const target = await newPlace();
      expect((await ops(target, ['restore', backupFile])).code).toBe(0);
      const kept = await withOpen(target, state);
      const { dump } = splitBackup(backupFile);
      const cut = path.join(folder, 'cut.dump');
      fs.writeFileSync(cut, dump.subarray(0, Math.floor(dump.length * 0.9)));
      await expect(replaceWithDump(target.env.DATABASE_URL!, cut, 0)).rejects.toThrow(
        /does not hold a readable PostgreSQL dump/,
      );
      await withOpen(target, async (handle) => expect(await state(handle)).toEqual(kept));
    },
    120_000,
  );

  it('a backup leaves out the codes of the dev inbox', async () => {
    const place = await newPlace();
    let code = '';
    await withOpen(place, async (handle) => {
      await runMigrations(handle);
      const account = await createTestAccount(handle.db);
      await requestSignInCode(handle.db, account.email, { clientIp: '192.0.2.10' });
      code = await devInboxCode(handle.db, account.email);
    });
    const file = path.join(folder, 'with-code.backup');
    expect((await ops(place, ['backup', file])).code).toBe(0);
    const { dump } = splitBackup(file);
    if (serverUrl) {
      const plain = spawnSync('pg_restore', ['--file=-'], { input: dump, maxBuffer: 1 << 28 }).stdout.toString();
      expect(plain).toContain('COPY public.accounts');
      expect(plain).not.toContain(code);
    }
    const target = await newPlace();
    expect((await ops(target, ['restore', file])).code).toBe(0);
    await withOpen(target, async (handle) => expect(await handle.db.select().from(devInbox)).toEqual([]));
  }, 240_000);

  it.runIf(serverUrl)(
    'pg_dump, pg_restore and psql get no password on their command line',
    async () => {
      const password = 'pw-on-no-command-line';
      const tools = fs.mkdtempSync(path.join(folder, 'tools-'));
      const calls = path.join(tools, 'calls.log');
      for (const tool of ['pg_dump', 'pg_restore', 'psql']) {
        const real = (await run('sh', ['-c', `command -v ${tool}`])).stdout.trim();
        fs.writeFileSync(
          path.join(tools, tool),
          `#!/bin/sh\nprintf '%s\\t%s\\t%s\\n' ${tool} "$PGPASSWORD" "$*" >> ${calls}\nexec ${real} "$@"\n`,
          { mode: 0o755 },
        );
      }
      const url = new URL(source.env.DATABASE_URL!);
      url.username = 'postgres';
      url.password = password;
      const path0 = process.env.PATH;
      process.env.PATH = `${tools}:${path0}`;
      const file = path.join(folder, 'argv.backup');
      const target = await newPlace();
      const targetUrl = new URL(target.env.DATABASE_URL!);
      targetUrl.username = 'postgres';
      targetUrl.password = password;
      try {
        await backupDatabase({ url: url.toString(), poolSize: 1, pipelineSize: 0 }, file);
        await restoreDatabase({ url: targetUrl.toString(), poolSize: 1, pipelineSize: 0 }, file);
      } finally {
        process.env.PATH = path0;
      }
      const spawned = fs
        .readFileSync(calls, 'utf8')
        .trim()
        .split('\n')
        .map((line) => {
          const [tool, env, ...argv] = line.split('\t');
          return { tool, env, argv: argv.join('\t') };
        });
      expect(new Set(spawned.map((call) => call.tool))).toEqual(new Set(['pg_dump', 'pg_restore', 'psql']));
      for (const call of spawned) expect(call.argv).not.toContain(password);
      // The tools that connect find the password in their environment (pg_restore only reads the file).
      for (const call of spawned.filter((entry) => entry.tool !== 'pg_restore')) expect(call.env).toBe(password);

      expect(libpqConnection('postgresql://simgate:p%40ss%3Aword@db.example:5433/simgate?sslmode=require')).toEqual({
        dbname: 'postgresql://simgate@db.example:5433/simgate?sslmode=require',
        env: { PGPASSWORD: 'p@ss:word' },
      });
      expect(libpqConnection('postgres:///simgate?host=/var/run/postgresql&password=secret')).toEqual({
        dbname: 'postgres:///simgate?host=%2Fvar%2Frun%2Fpostgresql',
        env: { PGPASSWORD: 'secret' },
      });
      expect(libpqConnection('postgres://simgate@localhost/simgate')).toEqual({
        dbname: 'postgres://simgate@localhost/simgate',
        env: {},
      });
    },
    240_000,
  );

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
