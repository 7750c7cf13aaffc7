import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { type Executor, embeddedFolder, MIGRATIONS_FOLDER, openPglite, runMigrations } from '@/db';
import { codeSchemaVersion, databaseSchemaVersion, SchemaTooNewError } from '@/db/schema-version';
import { freePort } from '@/scripts/free-port';
import { withTestDatabase } from './setup-db';
import { built, spawnStart } from './start-server';

/** An instance refuses a database that newer code has migrated, rather than run on a schema it does not know. */

const code = codeSchemaVersion(MIGRATIONS_FOLDER);
const FUTURE = code.createdAt + 10 ** 9;

/** What a newer release leaves behind: one more applied migration, and its own version recorded. */
async function migrateAsNewerRelease(executor: Executor): Promise<void> {
  await executor.execute(
    sql`insert into drizzle.__drizzle_migrations (hash, created_at) values ('from-the-future', ${FUTURE})`,
  );
  await executor.execute(
    sql`insert into drizzle.simgate_schema_versions (created_at, tag, app_version) values (${FUTURE}, '0999_from_the_future', '9.9.0')`,
  );
}

const { handle } = withTestDatabase();

describe('the schema version check', () => {
  it('records which release applied the newest migration', async () => {
    expect(await databaseSchemaVersion(handle().db, MIGRATIONS_FOLDER)).toEqual({
      createdAt: code.createdAt,
      tag: code.tag,
      appVersion: code.appVersion,
      unknown: [],
    });
  });

  it('refuses to migrate or run on a database migrated by newer code, naming both versions', async () => {
    await migrateAsNewerRelease(handle().db);
    const refused = runMigrations(handle());
    await expect(refused).rejects.toBeInstanceOf(SchemaTooNewError);
    await expect(refused).rejects.toThrow(
      `The database was migrated by newer code (Simgate 9.9.0, migration 0999_from_the_future) than this Simgate ${code.appVersion} knows (its newest migration is ${code.tag}).`,
    );
  });
});

const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-schema-version-'));
afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));

describe.runIf(built)('npm start on a database migrated by newer code', () => {
  it('exits 1 with the message, before it serves anything', async () => {
    const db = await openPglite(embeddedFolder(folder));
    await runMigrations(db);
    await migrateAsNewerRelease(db.db);
    await db.close();
    const { output, exited } = spawnStart({ DATA_DIR: folder, DATABASE_URL: '', PORT: String(await freePort()) });
    expect(await exited).toBe(1);
    expect(output.stderr).toContain('The database was migrated by newer code (Simgate 9.9.0');
    expect(output.stdout).not.toContain('Simgate ready');
  }, 120_000);
});
