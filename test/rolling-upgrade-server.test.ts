import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openPostgres, queryRows, runMigrations } from '@/db';
import { migrationsWith, nextMigrationTag } from '@/db/migration-folder';
import { addOptOut } from '@/lib/opt-outs/manage';
import { testDatabaseUrl } from './database';
import { addTestPhone, createTestAccount, type TestAccount, type TestPhone } from './fixtures';
import { until } from './poll';
import { built, type Running, startServer } from './start-server';

/**
 * A rolling upgrade: `npm start`'s server serves sends and heartbeats while a newer release's
 * migration (through the real migration runner) adds a nullable column, an index and a backfill to
 * `messages`, `phones` and `webhook_deliveries`. The server's prepared statements were made before
 * the migration and are used during and after it. No answer is a 500, every send answered 201 is
 * saved once, and every send answered 503 either was not saved or is found again by its
 * request_id. A database of its own on the test server (TEST_DATABASE_URL), dropped after. Needs a
 * build (test/start-server.ts).
 */

const SENDERS = 6;
const OPTED_OUT = '+14155550188';
const CREDITS = 1_000_000;
/** Sends answered before the migration: every connection of the server has its statements prepared. */
const WARM_SENDS = 150;
/** Sends answered after the migration committed, on the statements prepared before it. */
const AFTER_SENDS = 300;

/** The newer release's migration: what "adds a nullable column" comes to, on three busy tables. */
const PROBE_MIGRATION = ['messages', 'phones', 'webhook_deliveries']
  .map(
    (table) => `ALTER TABLE "${table}" ADD COLUMN "upgrade_probe" text;--> statement-breakpoint
CREATE INDEX "${table}_upgrade_probe_idx" ON "${table}" USING btree ("upgrade_probe");--> statement-breakpoint
UPDATE "${table}" SET "upgrade_probe" = 'backfilled' WHERE "upgrade_probe" IS NULL;`,
  )
  .join('--> statement-breakpoint\n');

/** A copy of the migrations folder with the probe migration after the last one. */
function newerMigrations(): string {
  return migrationsWith([{ tag: nextMigrationTag('upgrade_probe'), text: PROBE_MIGRATION }]);
}

type Answer = { requestId: string; status: number; body: Record<string, unknown> | null };

describe.runIf(built && testDatabaseUrl())(
  'a migration adding nullable columns under a serving instance (npm start)',
  () => {
    const adminUrl = testDatabaseUrl() as URL;
    const name = `simgate_upgrade_${randomBytes(4).toString('hex')}`;
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    let server: Running | undefined;
    let own: DatabaseHandle | undefined;
    let account: TestAccount;
    let second: TestPhone;

    async function admin(statement: string) {
      const client = postgres(adminUrl.toString(), { max: 1, onnotice: () => {} });
      try {
        await client.unsafe(statement);
      } finally {
        await client.end();
      }
    }

    beforeAll(async () => {
      await admin(`create database ${name}`);
      server = await startServer(
        {
          DATABASE_URL: url.toString(),
          APP_SECRET: 'upgrade-test-secret-upgrade-test-secret-0123456789',
          API_KEY_RATE_LIMIT: '0',
        },
        false,
      );
      own = openPostgres(url.toString(), { max: 2 });
      account = await createTestAccount(own.db, { credits: CREDITS });
      second = await addTestPhone(own.db, account, { online: true });
      await addOptOut(own.db, account.accountId, OPTED_OUT);
    }, 120_000);

    afterAll(async () => {
      if (server && server.child.exitCode === null) {
        server.child.kill('SIGTERM');
        await server.exited;
      }
      await own?.close();
      await admin(`drop database if exists ${name} with (force)`);
    }, 60_000);

    async function post(path: string, key: string, body: unknown): Promise<Omit<Answer, 'requestId'>> {
      const res = await fetch(`${server?.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, unknown> | null };
    }

    function send(requestId: string, viaGroup: boolean) {
      return post('/api/v1/messages', account.apiKey, {
        ...(viaGroup ? { from_group: account.defaultGroupId } : { from: account.phone }),
        to: '+14155550199',
        content: `upgrade ${requestId}`,
        request_id: requestId,
      });
    }

    it('answers no 500; every send answered is saved once, every 503 is unsaved or found by its request_id', {
      timeout: 300_000,
    }, async () => {
      const answers: Answer[] = [];
      const beats: number[] = [];
      const refusals: number[] = [];
      let stopped = false;
      const senders = Array.from({ length: SENDERS }, async (_, loop) => {
        for (let i = 0; !stopped; i++) {
          const requestId = `upgrade-${loop}-${i}`;
          answers.push({ requestId, ...(await send(requestId, loop % 2 === 1)) });
        }
      });
      // A send the batch does not take (an opted-out recipient) goes alone: the lone statement is prepared too.
      const refusing = (async () => {
        for (let i = 0; !stopped; i++) {
          const answer = await post('/api/v1/messages', account.apiKey, {
            from: account.phone,
            to: OPTED_OUT,
            content: 'refused',
            request_id: `upgrade-refused-${i}`,
          });
          refusals.push(answer.status);
        }
      })();
      // Phones going online and offline: a status change is recorded in a transaction, prepared too.
      const beating = (async () => {
        for (let i = 0; !stopped; i++) {
          for (const phone of [
            { key: account.deviceKey, number: account.phone },
            { key: second.deviceKey, number: second.phone },
          ]) {
            const status = i % 2 === 0 ? 'online' : 'offline';
            const beat = { phone: phone.number, status, battery: 80 };
            beats.push((await post('/api/v1/heartbeats', phone.key, beat)).status);
          }
        }
      })();
      let migrated = Number.POSITIVE_INFINITY;
      try {
        await until(() => answers.filter((answer) => answer.status === 201).length >= WARM_SENDS, {
          timeoutMs: 120_000,
          intervalMs: 50,
        });
        const folder = newerMigrations();
        const upgrade = openPostgres(url.toString(), { max: 1 });
        try {
          await runMigrations(upgrade, folder);
        } finally {
          await upgrade.close();
          fs.rmSync(folder, { recursive: true, force: true });
        }
        migrated = answers.length;
        await until(() => answers.length - migrated >= AFTER_SENDS, { timeoutMs: 120_000, intervalMs: 50 });
      } finally {
        stopped = true;
        await Promise.all([...senders, refusing, beating]);
      }

      // What the server logged of its failures, to read beside a failed assertion.
      const logged = () =>
        (server as Running)
          .output()
          .split('\n')
          .filter((line) => /cached plan|Cannot read|out of range|unhandled error/.test(line))
          .slice(0, 3)
          .map((line) => /cached plan[^"]*|Cannot read[^"]*|out of range[^"]*/.exec(line)?.[0] ?? line.slice(0, 300))
          .join('\n');
      const failed = answers.filter((answer) => ![201, 503].includes(answer.status));
      expect(failed, `${JSON.stringify(failed.slice(0, 5))}\n${logged()}`).toEqual([]);
      expect(
        beats.filter((status) => ![200, 503].includes(status)),
        logged(),
      ).toEqual([]);
      expect(
        refusals.filter((status) => ![422, 503].includes(status)),
        logged(),
      ).toEqual([]);
      expect(answers.length - migrated).toBeGreaterThanOrEqual(AFTER_SENDS);

      const db = (own as DatabaseHandle).db;
      const saved = await queryRows<{ id: string; request_id: string; upgrade_probe: string | null }>(
        db,
        sql`select id, request_id, upgrade_probe from messages where account_id = ${account.accountId}::uuid`,
      );
      const byRequest = new Map(saved.map((row) => [row.request_id, row]));
      // Once each: the unique index guarantees it; the count says no send was saved unanswered twice over.
      expect(byRequest.size).toBe(saved.length);
      for (const answer of answers.filter((one) => one.status === 201)) {
        expect(byRequest.get(answer.requestId)?.id).toBe(answer.body?.id);
      }
      for (const answer of answers.filter((one) => one.status === 503)) {
        const row = byRequest.get(answer.requestId);
        if (!row) continue;
        const again = await send(answer.requestId, false);
        expect(again.status).toBe(409);
        expect(again.body?.message_id).toBe(row.id);
      }
      // Each saved message was charged once.
      const [group] = await queryRows<{ balance: number }>(
        db,
        sql`select balance from phone_groups where account_id = ${account.accountId}::uuid and id = ${account.defaultGroupId}`,
      );
      expect(Number(group?.balance)).toBe(CREDITS - saved.length);
      // The migration ran while the server served: the rows it backfilled are there.
      expect(saved.some((row) => row.upgrade_probe === 'backfilled')).toBe(true);
    });
  },
);
