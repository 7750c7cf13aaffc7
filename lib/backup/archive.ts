import fs from 'node:fs';
import { z } from 'zod';

/**
 * A Simgate backup file: a first line naming the format, a second line of JSON saying what the
 * backup holds (BackupHeader), then the database's own dump: `pg_dump`'s custom format for
 * PostgreSQL, PGlite's gzipped tar of its data folder for the embedded database.
 */
const MAGIC = 'SIMGATE-BACKUP 1';

export const backupHeaderSchema = z.object({
  database: z.enum(['postgres', 'pglite']),
  /** When the backup was taken (ISO 8601). */
  createdAt: z.string(),
  /** The Simgate version that took it. */
  appVersion: z.string(),
  /** The backed-up database's schema: its newest applied migration (db/schema-version.ts). */
  schema: z.object({
    createdAt: z.number().int().nonnegative(),
    tag: z.string().optional(),
    appVersion: z.string().optional(),
  }),
});

export type BackupHeader = z.infer<typeof backupHeaderSchema>;

/** The lines a backup file begins with. */
export function headerBytes(header: BackupHeader): Buffer {
  return Buffer.from(`${MAGIC}\n${JSON.stringify(header)}\n`);
}

/** A backup file's header and where its dump begins; throws when `file` is no Simgate backup. */
export function readHeader(file: string): { header: BackupHeader; offset: number } {
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(64 * 1024);
    const length = fs.readSync(fd, head, 0, head.length, 0);
    const text = head.subarray(0, length);
    const first = text.indexOf(0x0a);
    const second = first >= 0 ? text.indexOf(0x0a, first + 1) : -1;
    if (first < 0 || second < 0 || text.subarray(0, first).toString() !== MAGIC) {
      throw new Error(`${file} is not a Simgate backup (made by \`npm run ops -- backup\`)`);
    }
    const parsed = backupHeaderSchema.safeParse(JSON.parse(text.subarray(first + 1, second).toString()));
    if (!parsed.success) throw new Error(`${file}: unreadable backup header (${parsed.error.issues[0]?.message})`);
    return { header: parsed.data, offset: second + 1 };
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes `file` through a temporary beside it, so a failed backup leaves no half file under its name. */
export async function writeAtomically(file: string, write: (stream: fs.WriteStream) => Promise<void>): Promise<void> {
  const partial = `${file}.partial`;
  const stream = fs.createWriteStream(partial, { mode: 0o600 });
  try {
    await write(stream);
    await new Promise<void>((resolve, reject) => {
      stream.once('error', reject);
      stream.end(resolve);
    });
    fs.renameSync(partial, file);
  } catch (error) {
    stream.destroy();
    fs.rmSync(partial, { force: true });
    throw error;
  }
}
