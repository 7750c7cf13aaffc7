import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { POST as analyze } from '@/app/api/bench/analyze/route';
import { POST as bare } from '@/app/api/bench/bare/route';
import { queryRows } from '@/db';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

afterEach(() => {
  vi.unstubAllEnvs();
});

describe("the benchmark's routes", () => {
  it('are not found unless the server runs with BENCH=1', async () => {
    vi.stubEnv('BENCH', '');
    expect((await call(bare, { body: { ping: true } })).status).toBe(404);
    expect((await call(analyze, { method: 'POST' })).status).toBe(404);
  });

  it('with BENCH=1: the bare route answers, and analyze gives messages planner statistics', async () => {
    vi.stubEnv('BENCH', '1');
    expect(await call(bare, { body: { ping: true } })).toMatchObject({ status: 201, body: { ok: true, echoed: true } });
    expect((await call(analyze, { method: 'POST' })).status).toBe(204);
    const [stats] = await queryRows<{ analyzed: boolean }>(
      db(),
      sql`select last_analyze is not null as analyzed from pg_stat_user_tables where relname = 'messages'`,
    );
    expect(stats?.analyzed).toBe(true);
  });
});
