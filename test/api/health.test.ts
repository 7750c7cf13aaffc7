import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { GET as smsgateLive } from '@/app/api/3rdparty/v1/health/live/route';
import { GET as smsgateReady } from '@/app/api/3rdparty/v1/health/ready/route';
import { GET as smsgateHealth } from '@/app/api/3rdparty/v1/health/route';
import { GET as smsgateStartup } from '@/app/api/3rdparty/v1/health/startup/route';
import { GET as live } from '@/app/api/health/live/route';
import { GET as ready } from '@/app/api/health/ready/route';
import { GET as health } from '@/app/api/health/route';
import { GET as startup } from '@/app/api/health/startup/route';
import { openPostgres, queryRows, setDatabase } from '@/db';
import journal from '@/db/migrations/meta/_journal.json';
import { type HealthState, probe, processState } from '@/lib/runtime/health';
import {
  beginShutdown,
  markBackground,
  markStarted,
  resetShutdownForTests,
  resetStartForTests,
} from '@/lib/runtime/lifecycle';
import { APP_VERSION } from '@/lib/version';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db, handle } = withTestDatabase();

/** What lib/server/start.ts leaves behind once the app has started with its background work. */
function started(background: 'running' | 'off' = 'running'): void {
  markStarted();
  markBackground(background);
}

afterEach(() => {
  resetShutdownForTests();
  resetStartForTests();
});

const latest = journal.entries.at(-1)!;

/** Runs `work` with the database's record of the latest migration removed, as if it were not applied. */
async function withLatestMigrationUnapplied(work: () => Promise<void>): Promise<void> {
  const [row] = await queryRows<{ id: number; hash: string; created_at: unknown }>(
    db(),
    sql`delete from drizzle.__drizzle_migrations where created_at = ${latest.when} returning id, hash, created_at`,
  );
  expect(row).toBeDefined();
  try {
    await work();
  } finally {
    await db().execute(
      sql`insert into drizzle.__drizzle_migrations (id, hash, created_at) values (${row!.id}, ${row!.hash}, ${latest.when})`,
    );
  }
}

describe('/api/health/live', () => {
  it('answers 200 with the version, without the app having started', async () => {
    const res = await call(live);
    expect(res.status).toBe(200);
    expect(res.contentType).toBe('application/json');
    expect(res.body).toEqual({
      status: 'ok',
      version: APP_VERSION,
      checks: { process: { status: 'ok', detail: 'answering' } },
    });
  });

  it('stays 200 while the shutdown drains requests', async () => {
    beginShutdown();
    const res = await call(live);
    expect(res.status).toBe(200);
    expect(res.body.checks.process.detail).toMatch(/shutting down/);
  });

  it('asks nothing of the database', async () => {
    const untouchable = () => Promise.reject(new Error('the live probe queried the database'));
    const state: HealthState = {
      ...processState,
      database: untouchable,
      listening: untouchable,
      appliedMigrations: untouchable,
    };
    expect((await probe('live', db(), state)).status).toBe('ok');
  });
});

describe('/api/health/ready and /api/health', () => {
  it('answers 200 with every check once the app has started', async () => {
    started();
    for (const handler of [ready, health]) {
      const res = await call(handler);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        status: 'ok',
        version: APP_VERSION,
        checks: {
          shutdown: { status: 'ok' },
          started: { status: 'ok' },
          database: { status: 'ok', ms: expect.any(Number) },
          migrations: { status: 'ok', detail: `${journal.entries.length} applied` },
          listen: { status: 'ok', ms: expect.any(Number) },
          background: { status: 'ok', detail: 'running in this process' },
        },
      });
    }
  });

  it('answers 503 before the app has started, as problem+json naming the failing checks', async () => {
    const res = await call(ready);
    expect(res.status).toBe(503);
    expect(res.contentType).toBe('application/problem+json');
    expect(res.headers.get('retry-after')).toBe('5');
    expect(res.body).toMatchObject({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
      version: APP_VERSION,
      checks: {
        started: { status: 'fail' },
        database: { status: 'ok' },
        migrations: { status: 'ok' },
        listen: { status: 'ok' },
        background: { status: 'fail', detail: 'not started' },
      },
    });
    expect(res.body.detail).toMatch(/^Not ready: started \(.*\); background \(not started\)\.$/);
    expect((await call(health)).body).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      checks: { started: { status: 'fail' }, background: { status: 'fail' } },
    });
  });

  it('is ready with the background work off here (BACKGROUND=off), and says so', async () => {
    started('off');
    const res = await call(ready);
    expect(res.status).toBe(200);
    expect(res.body.checks.background).toEqual({
      status: 'ok',
      detail: 'off here (BACKGROUND=off): `npm run worker` processes run it',
    });
  });

  it('answers 503 as soon as the shutdown drain begins, without asking the database; live stays 200', async () => {
    started();
    expect((await call(ready)).status).toBe(200);
    beginShutdown();
    const res = await call(ready);
    expect(res.status).toBe(503);
    expect(res.body.checks).toEqual({ shutdown: { status: 'fail', detail: 'shutting down: draining requests' } });
    expect(res.body.detail).toBe('Not ready: shutdown (shutting down: draining requests).');
    expect((await call(live)).status).toBe(200);

    const untouchable = () => Promise.reject(new Error('the drained probe queried the database'));
    const state: HealthState = { ...processState, database: untouchable, listening: untouchable };
    expect((await probe('ready', db(), state)).checks).toEqual(res.body.checks);
  });

  it('answers 503 naming the migrations of this release the database lacks', async () => {
    started();
    await withLatestMigrationUnapplied(async () => {
      const res = await call(ready);
      expect(res.status).toBe(503);
      expect(res.body.checks.migrations).toMatchObject({
        status: 'fail',
        detail: `1 of this release's ${journal.entries.length} migrations not applied: ${latest.tag}`,
      });
      expect(res.body.detail).toContain(`migrations (1 of this release's`);
      expect(res.body.checks.database.status).toBe('ok');
    });
    expect((await call(ready)).status).toBe(200);
  });

  it('stays ready on a database a newer release has migrated further (a rolling upgrade)', async () => {
    started();
    const newer = latest.when + 1_000;
    await db().execute(sql`insert into drizzle.__drizzle_migrations (hash, created_at) values ('newer', ${newer})`);
    try {
      const res = await call(ready);
      expect(res.status).toBe(200);
      expect(res.body.checks.migrations.detail).toBe(`${journal.entries.length} applied, and 1 of a newer release`);
    } finally {
      await db().execute(sql`delete from drizzle.__drizzle_migrations where created_at = ${newer}`);
    }
  });

  it('answers 503 within its bound when the database does not answer', async () => {
    started();
    const hang = () => new Promise<never>(() => {});
    const state: HealthState = {
      ...processState,
      database: (_db, timeoutMs) => processState.database({ execute: hang } as never, timeoutMs),
      listening: hang,
      appliedMigrations: hang,
      timeoutMs: 50,
    };
    // A probe that waited on the database would never resolve, and the test would time out.
    const report = await probe('ready', db(), state);
    expect(report.status).toBe('fail');
    expect(report.checks).toMatchObject({
      database: { status: 'fail', detail: 'no answer within 50 ms' },
      migrations: { status: 'fail', detail: 'no answer within 50 ms' },
      listen: { status: 'fail', detail: expect.stringContaining('within 50 ms') },
    });
  });

  it('answers 503 when the database is down, with no address in the answer', async () => {
    started();
    // Nothing listens on port 1: every query fails to connect.
    const unreachable = openPostgres('postgres://postgres@127.0.0.1:1/none', { max: 1 });
    setDatabase(unreachable);
    try {
      for (const handler of [ready, startup]) {
        const res = await call(handler);
        expect(res.status).toBe(503);
        // Refused at once, or still retrying when the bound comes: either way within it.
        const failed = {
          status: 'fail',
          detail: expect.stringMatching(/does not answer|cannot read|no answer within/),
        };
        expect(res.body.checks).toMatchObject({ database: failed, migrations: failed });
        expect(res.text).not.toContain('127.0.0.1');
      }
      expect((await call(live)).status).toBe(200);
    } finally {
      setDatabase(handle());
      await unreachable.close();
    }
  });
});

describe('/api/health/startup', () => {
  it('answers 503 before the app has started, 200 after', async () => {
    const before = await call(startup);
    expect(before.status).toBe(503);
    expect(before.contentType).toBe('application/problem+json');
    expect(before.body).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      version: APP_VERSION,
      checks: { started: { status: 'fail' }, database: { status: 'ok' }, migrations: { status: 'ok' } },
    });
    expect(before.body.detail).toMatch(/^Not started: started/);

    started();
    const after = await call(startup);
    expect(after.status).toBe(200);
    expect(after.body).toMatchObject({
      status: 'ok',
      version: APP_VERSION,
      checks: { started: { status: 'ok' }, database: { status: 'ok' }, migrations: { status: 'ok' } },
    });
    expect(Object.keys(after.body.checks)).toEqual(['started', 'database', 'migrations']);
  });

  it('answers 503 naming the migrations when the database lacks one of this release', async () => {
    started();
    await withLatestMigrationUnapplied(async () => {
      const res = await call(startup);
      expect(res.status).toBe(503);
      expect(res.body.checks.migrations.detail).toContain(latest.tag);
    });
  });
});

describe('SMSGate’s health routes, backed by the same probes', () => {
  it('answer in SMSGate’s shape: pass with 200 once started', async () => {
    started();
    for (const handler of [smsgateHealth, smsgateReady]) {
      const res = await call(handler);
      expect(res.status).toBe(200);
      expect(res.contentType).toBe('application/json');
      expect(res.body).toMatchObject({
        status: 'pass',
        version: APP_VERSION,
        releaseId: expect.any(Number),
        checks: {
          'db:ping': {
            status: 'pass',
            observedUnit: 'ms',
            observedValue: expect.any(Number),
            description: expect.any(String),
          },
          migrations: { status: 'pass' },
          listen: { status: 'pass' },
          background: { status: 'pass' },
        },
      });
    }
    expect((await call(smsgateStartup)).body).toMatchObject({
      status: 'pass',
      checks: { started: { status: 'pass' } },
    });
    expect((await call(smsgateLive)).body).toMatchObject({ status: 'pass', checks: { process: { status: 'pass' } } });
  });

  it('answer fail with 503 where ours do, live staying pass through the drain', async () => {
    const unstarted = await call(smsgateStartup);
    expect(unstarted.status).toBe(503);
    expect(unstarted.body).toMatchObject({ status: 'fail', checks: { started: { status: 'fail' } } });

    started();
    beginShutdown();
    const draining = await call(smsgateReady);
    expect(draining.status).toBe(503);
    expect(draining.contentType).toBe('application/json');
    expect(draining.body).toMatchObject({ status: 'fail', checks: { shutdown: { status: 'fail' } } });
    expect((await call(smsgateLive)).status).toBe(200);
  });
});
