import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import {
  type DatabaseHandle,
  type DatabaseLimits,
  DEFAULT_DATABASE_LIMITS,
  openPglite,
  openPostgres,
  runMigrations,
} from '@/db/client';
import { distributeTables } from '@/lib/ops/distribute';

/**
 * Test databases: every test file gets its own fresh, migrated database. On PGlite (default) it
 * is an in-memory copy of a migrated template; with TEST_DATABASE_URL it is a new database on
 * that server, cloned from a migrated template database.
 *
 * With TEST_CITUS=1 the server is a Citus coordinator (TEST_DATABASE_URL, by default the one
 * scripts/citus-cluster.sh runs on port 5440) whose `postgres` database lists the worker nodes: the
 * template is created on the coordinator and on every worker, with the extension in each, the
 * workers added, migrated and distributed (lib/ops/distribute.ts); each test database is then a
 * clone of the template on every node, so that its tables are distributed as in production.
 */

export const CITUS_DEFAULT_URL = 'postgres://postgres@127.0.0.1:5440/postgres';

export const citusMode = (): boolean => process.env.TEST_CITUS === '1';

export function testDatabaseUrl(): URL | undefined {
  const raw = process.env.TEST_DATABASE_URL || (citusMode() ? CITUS_DEFAULT_URL : undefined);
  if (!raw) return undefined;
  const url = new URL(raw);
  // These tests create and drop databases: never against anything but this machine.
  if (!['localhost', '127.0.0.1', '[::1]', ''].includes(url.hostname)) {
    throw new Error(`TEST_DATABASE_URL must point at a local server, not ${url.hostname}`);
  }
  return url;
}

export function withDatabase(url: URL, name: string): string {
  const copy = new URL(url);
  copy.pathname = `/${name}`;
  return copy.toString();
}

/** `url` with another host and port: a Citus worker's. */
function onNode(url: URL, node: { host: string; port: number }): URL {
  const copy = new URL(url);
  copy.hostname = node.host;
  copy.port = String(node.port);
  return copy;
}

async function onServer(url: URL, statements: string[]): Promise<void> {
  const admin = postgres(url.toString(), { max: 1, onnotice: () => {} });
  try {
    for (const statement of statements) await admin.unsafe(statement);
  } finally {
    await admin.end();
  }
}

/**
 * Drops a test database. With Citus, its maintenance daemon (a background worker, which DROP DATABASE
 * … WITH (FORCE) does not end) may be connected or reconnecting: connections are closed to it first,
 * and the drop is tried again a few times.
 */
export async function dropDatabase(node: URL, name: string, citus: boolean): Promise<void> {
  if (!citus) return onServer(node, [`drop database if exists ${name} with (force)`]);
  for (let attempt = 1; ; attempt++) {
    try {
      return await onServer(node, [
        `alter database ${name} with allow_connections false`,
        `select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}' and pid <> pg_backend_pid()`,
        `drop database if exists ${name} with (force)`,
      ]);
    } catch (error) {
      if (attempt >= 10 || !/being accessed by other users|does not exist/.test((error as Error).message)) throw error;
      if (/does not exist/.test((error as Error).message)) return;
      await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
    }
  }
}

/** The coordinator's workers, as its `postgres` database lists them (scripts/citus-cluster.sh adds them). */
export async function citusWorkers(url: URL): Promise<URL[]> {
  const admin = postgres(url.toString(), { max: 1, onnotice: () => {} });
  try {
    const [citus] = await admin<{ installed: boolean }[]>`
      select exists (select 1 from pg_extension where extname = 'citus') as installed`;
    if (!citus?.installed) {
      throw new Error(`TEST_CITUS=1: ${url.host} has no Citus extension (run scripts/citus-cluster.sh up)`);
    }
    const nodes = await admin<{ host: string; port: number }[]>`
      select nodename as host, nodeport as port from pg_dist_node
      where groupid <> 0 and noderole = 'primary' and isactive order by nodeport`;
    if (nodes.length === 0) {
      throw new Error(`TEST_CITUS=1: the coordinator ${url.host} has no worker nodes (scripts/citus-cluster.sh up)`);
    }
    return nodes.map((node) => onNode(url, node));
  } finally {
    await admin.end();
  }
}

/** A database made on the coordinator and on every worker, the coordinator's nodes added. */
export async function createCitusTemplate(url: URL, workers: URL[], name: string): Promise<void> {
  for (const node of [url, ...workers]) {
    await onServer(node, [`create database ${name}`]);
    await onServer(new URL(withDatabase(node, name)), ['create extension citus']);
  }
  await onServer(new URL(withDatabase(url, name)), [
    `select citus_set_coordinator_host('${url.hostname}', ${Number(url.port || 5432)})`,
    ...workers.map((worker) => `select citus_add_node('${worker.hostname}', ${Number(worker.port || 5432)})`),
  ]);
}

/**
 * Closes the template to connections on every node (Citus keeps its own open: its maintenance daemon,
 * its connections between nodes), so that CREATE DATABASE … TEMPLATE can copy it.
 */
async function freezeTemplate(nodes: URL[], name: string): Promise<void> {
  for (const node of nodes) {
    await onServer(node, [
      `alter database ${name} with allow_connections false`,
      `select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}' and pid <> pg_backend_pid()`,
    ]);
  }
}

/** The template's names; `workers`, in Citus mode, the workers' URLs (the template is on each too). */
export type Template = { pglite: string; postgres: string; workers?: string[] };

/** Runs once per `vitest run`: builds the migrated template (one per run, so runs can overlap). */
export async function prepareTemplate(): Promise<{ template: Template; teardown: () => Promise<void> }> {
  const url = testDatabaseUrl();
  const templateDb = `simgate_tpl_${process.pid}_${randomBytes(3).toString('hex')}`;
  const pgliteTemplate = path.join(
    os.tmpdir(),
    `simgate-pglite-template-${process.pid}-${randomBytes(4).toString('hex')}.tar.gz`,
  );
  if (!url) {
    const handle = await openPglite();
    await runMigrations(handle);
    if (handle.driver.kind !== 'pglite') throw new Error('unreachable');
    const dump = await handle.driver.client.dumpDataDir('gzip');
    fs.writeFileSync(pgliteTemplate, Buffer.from(await dump.arrayBuffer()));
    await handle.close();
    return {
      template: { pglite: pgliteTemplate, postgres: '' },
      teardown: async () => fs.rmSync(pgliteTemplate, { force: true }),
    };
  }
  const workers = citusMode() ? await citusWorkers(url) : [];
  if (citusMode()) await createCitusTemplate(url, workers, templateDb);
  else await onServer(url, [`create database ${templateDb}`]);
  const template = openPostgres(withDatabase(url, templateDb), { max: 1 });
  try {
    await runMigrations(template);
    if (citusMode()) await distributeTables(template.db);
  } finally {
    await template.close();
  }
  if (citusMode()) await freezeTemplate([url, ...workers], templateDb);
  return {
    template: { pglite: '', postgres: templateDb, workers: workers.map(String) },
    teardown: async () => {
      for (const node of [url, ...workers]) await dropDatabase(node, templateDb, citusMode());
    },
  };
}

export type TestDatabase = DatabaseHandle & { name: string };

export async function openTestDatabase(template: Template): Promise<TestDatabase> {
  const url = testDatabaseUrl();
  if (!url) {
    const dump = new Blob([fs.readFileSync(template.pglite)]);
    const handle = await openPglite(undefined, { loadDataDir: dump });
    return { ...handle, name: 'pglite:memory' };
  }
  const name = `simgate_t_${randomBytes(6).toString('hex')}`;
  // The workers' copies first: the coordinator's reaches them as soon as it is used.
  const nodes = [...(template.workers ?? []).map((worker) => new URL(worker)), url];
  for (const node of nodes) await onServer(node, [`create database ${name} template ${template.postgres}`]);
  const handle = openPostgres(withDatabase(url, name), {
    max: 20,
    pipeline: 2,
    ...(template.workers ? { limits: CITUS_TEST_LIMITS } : {}),
  });
  return {
    ...handle,
    name,
    close: async () => {
      await handle.close();
      for (const node of nodes.reverse()) await dropDatabase(node, name, Boolean(template.workers));
    },
  };
}

/**
 * The Citus mode's bounds: three PostgreSQL clusters share this machine's cores with the tests, and a
 * send there runs each of its data-modifying CTEs as a subplan, a round trip each (docs/past-one-machine.md),
 * so one account's parallel sends, which take its queue row in turn, take far longer than on one
 * PostgreSQL. The races the tests make are the same; only the time they may take is longer.
 */
const CITUS_TEST_LIMITS: DatabaseLimits = {
  ...DEFAULT_DATABASE_LIMITS,
  statementTimeoutMs: 60_000,
  acquireTimeoutMs: 60_000,
  requestDeadlineMs: 60_000,
};

export const onRealPostgres = (): boolean => Boolean(process.env.TEST_DATABASE_URL) || citusMode();
