import fs from 'node:fs';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import {
  type DatabaseLocation,
  type Executor,
  embeddedFolder,
  MIGRATIONS_FOLDER,
  openPglite,
  openPostgres,
} from '@/db';
import { databaseSchemaVersion } from '@/db/schema-version';
import { APP_VERSION } from '@/lib/version';
import {
  type BackupHeader,
  dumpDigest,
  headerBytes,
  readHeader,
  writeAtomically,
  writeStreamedBackup,
} from './archive';
import { requestBackup } from './live';
import { pgDump } from './postgres';

export type BackupResult = {
  file: string;
  header: BackupHeader;
  bytes: number;
  /** Who took it: pg_dump, this process on the embedded folder, or the server running on it. */
  via: 'pg_dump' | 'embedded' | 'running server';
};

async function headerFor(executor: Executor, database: BackupHeader['database']): Promise<BackupHeader> {
  const { createdAt, tag, appVersion } = await databaseSchemaVersion(executor, MIGRATIONS_FOLDER);
  return {
    database,
    createdAt: new Date().toISOString(),
    appVersion: APP_VERSION,
    schema: { createdAt, ...(tag ? { tag } : {}), ...(appVersion ? { appVersion } : {}) },
  };
}

/**
 * A backup of an open embedded database, as the parts of its file: header, then PGlite's gzipped
 * tar of the data folder. The dump waits for the statement running now and holds the next ones
 * for its length (PGlite's own lock); a checkpoint first keeps the WAL it carries short.
 */
export async function embeddedBackup(executor: Executor, client: PGlite): Promise<Buffer[]> {
  const header = await headerFor(executor, 'pglite');
  await client.exec('CHECKPOINT');
  const dump = Buffer.from(await (await client.dumpDataDir('gzip')).arrayBuffer());
  return [headerBytes({ ...header, dump: dumpDigest(dump) }), dump];
}

/**
 * `npm run ops -- backup <file>`. PostgreSQL: pg_dump's custom format, taken while instances run
 * (one consistent snapshot). Embedded: from the running server when one holds the folder
 * (lib/backup/live.ts), else by opening the folder here.
 */
export async function backupDatabase(location: DatabaseLocation, file: string): Promise<BackupResult> {
  let via: BackupResult['via'];
  if ('url' in location) {
    via = 'pg_dump';
    const handle = openPostgres(location.url, { max: 1 });
    let header: BackupHeader;
    try {
      header = await headerFor(handle.db, 'postgres');
    } finally {
      await handle.close();
    }
    await writeStreamedBackup(file, header, (sink) => pgDump(location.url, sink));
  } else {
    const fromServer = await requestBackup(location.dataDir);
    if (fromServer) {
      via = 'running server';
      await writeAtomically(file, async (stream) => {
        stream.write(fromServer);
      });
    } else {
      via = 'embedded';
      const folder = embeddedFolder(location.dataDir);
      if (!fs.existsSync(path.join(folder, 'PG_VERSION')))
        throw new Error(`no embedded database in ${location.dataDir} to back up`);
      const handle = await openPglite(folder);
      try {
        if (handle.driver.kind !== 'pglite') throw new Error('unreachable');
        const parts = await embeddedBackup(handle.db, handle.driver.client);
        await writeAtomically(file, async (stream) => {
          for (const part of parts) stream.write(part);
        });
      } finally {
        await handle.close();
      }
    }
  }
  return { file, header: readHeader(file).header, bytes: fs.statSync(file).size, via };
}
