import fs from 'node:fs';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { openPostgres, runMigrations } from '@/db';
import { postgresTarget } from '@/db/postgres-url';
import { testDatabaseUrl } from './database';
import { until } from './poll';
import { withTestDatabase } from './setup-db';

const MIGRATION_LOCK_ID = 72_201_977;
const SOCKET_DIR = '/var/run/postgresql';

describe('postgres URLs as libpq writes them', () => {
  it('leaves an ordinary URL, its TLS mode and parameters, exactly as configured', () => {
    const url = 'postgresql://u:p%40ss@db.example.com:6432/simgate?sslmode=require&application_name=x';
    expect(postgresTarget(url)).toEqual({ url });
  });

  it('takes the socket directory of a unix-socket URL apart, keeping the rest', () => {
    expect(postgresTarget('postgres://postgres@/test?host=/var/run/postgresql&application_name=x')).toEqual({
      url: 'postgres://postgres@localhost/test?application_name=x',
      host: '/var/run/postgresql',
    });
    expect(postgresTarget('postgres://postgres@%2Fvar%2Frun%2Fpostgresql:5433/test')).toEqual({
      url: 'postgres://postgres@localhost:5433/test',
      host: '/var/run/postgresql',
    });
  });

  it('refuses what is not a postgres URL', () => {
    for (const url of ['db.example.com:5432', 'mysql://db/x', 'postgres://u@/x']) {
      expect(() => postgresTarget(url), url).toThrowError(/not a postgres/);
    }
  });
});

describe.skipIf(!testDatabaseUrl())('the migration lock connection', () => {
  const test = withTestDatabase();

  /**
   * Runs the migrations through `url` while this test holds their lock, and answers how the lock
   * connection, trying it again and again, shows in pg_stat_activity.
   */
  async function lockConnectionOf(url: string, applicationName: string) {
    const base = testDatabaseUrl() as URL;
    const holder = postgres({ ...hostOf(base), database: test.handle().name, max: 1, onnotice: () => {} });
    const handle = openPostgres(url, { max: 1 });
    try {
      await holder`select pg_advisory_lock(${MIGRATION_LOCK_ID})`;
      const migrating = runMigrations(handle);
      const [waiting] = await until(() =>
        holder<Array<{ application_name: string; client_addr: string | null }>>`
          select application_name, client_addr from pg_stat_activity
          where datname = current_database() and application_name = ${applicationName}
            and query like '%pg_try_advisory_lock%'`.then((rows) => (rows.length > 0 ? rows : undefined)),
      );
      await holder`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`;
      await migrating;
      return waiting;
    } finally {
      await handle.close();
      await holder.end();
    }
  }

  function hostOf(url: URL) {
    return {
      host: url.hostname,
      port: Number(url.port || 5432),
      user: decodeURIComponent(url.username),
      pass: decodeURIComponent(url.password),
    };
  }

  it('keeps the configured URL: its sslmode and parameters (application_name) reach the server', async () => {
    const url = new URL(testDatabaseUrl() as URL);
    url.pathname = `/${test.handle().name}`;
    url.search = '?sslmode=disable&application_name=simgate-lock-tcp';
    const connection = await lockConnectionOf(url.toString(), 'simgate-lock-tcp');
    expect(connection?.client_addr).not.toBeNull();
  });

  it.skipIf(!fs.existsSync(`${SOCKET_DIR}/.s.PGSQL.5432`))(
    'connects through a unix socket when the URL says so',
    async () => {
      const user = decodeURIComponent((testDatabaseUrl() as URL).username) || 'postgres';
      const url = `postgres://${user}@/${test.handle().name}?host=${SOCKET_DIR}&application_name=simgate-lock-socket`;
      const connection = await lockConnectionOf(url, 'simgate-lock-socket');
      // A unix-socket client has no address.
      expect(connection).toMatchObject({ application_name: 'simgate-lock-socket', client_addr: null });
    },
  );
});
