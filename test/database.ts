import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { type DatabaseHandle, openPglite, openPostgres, runMigrations } from '@/db/client';

/**
 * Test databases: every test file gets its own fresh, migrated database. On PGlite (default) it
 * is an in-memory copy of a migrated template; with TEST_DATABASE_URL it is a new database on
 * that server, cloned from a migrated template database.
 */

export function testDatabaseUrl(): URL | undefined {
  const raw = process.env.TEST_DATABASE_URL;
  if (!raw) return undefined;
  const url = new URL(raw);
  // These tests create and drop databases: never against anything but this machine.
  if (!['localhost', '127.0.0.1', '[::1]', ''].includes(url.hostname)) {
    throw new Error(`TEST_DATABASE_URL must point at a local server, not ${url.hostname}`);
  }
  return url;
}

function withDatabase(url: URL, name: string): string {
  const copy = new URL(url);
  copy.pathname = `/${name}`;
  return copy.toString();
}

export type Template = { pglite: string; postgres: string };

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
  const admin = postgres(url.toString(), { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database ${templateDb}`);
  } finally {
    await admin.end();
  }
  const template = openPostgres(withDatabase(url, templateDb), { max: 1 });
  await runMigrations(template);
  await template.close();
  return {
    template: { pglite: '', postgres: templateDb },
    teardown: async () => {
      const cleaner = postgres(url.toString(), { max: 1, onnotice: () => {} });
      try {
        await cleaner.unsafe(`drop database if exists ${templateDb} with (force)`);
      } finally {
        await cleaner.end();
      }
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
  const admin = postgres(url.toString(), { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database ${name} template ${template.postgres}`);
  } finally {
    await admin.end();
  }
  const handle = openPostgres(withDatabase(url, name), { max: 20, pipeline: 2 });
  return {
    ...handle,
    name,
    close: async () => {
      await handle.close();
      const cleaner = postgres(url.toString(), { max: 1, onnotice: () => {} });
      try {
        await cleaner.unsafe(`drop database if exists ${name} with (force)`);
      } finally {
        await cleaner.end();
      }
    },
  };
}

export const onRealPostgres = (): boolean => Boolean(process.env.TEST_DATABASE_URL);
