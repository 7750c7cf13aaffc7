import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { Writable } from 'node:stream';
import { z } from 'zod';

/**
 * A Simgate backup file: a first line naming the format, a second line of JSON saying what the
 * backup holds (BackupHeader), then the database's own dump: `pg_dump`'s custom format for
 * PostgreSQL, PGlite's gzipped tar of its data folder for the embedded database. The header records
 * the dump's length and SHA-256, so that a restore refuses a cut or altered file before it touches
 * the database (backups made before that have no `dump` and are read through instead: restore.ts).
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
  /** The dump after the header: its length in bytes and SHA-256 (hex). */
  dump: z.object({ bytes: z.number().int().nonnegative(), sha256: z.string().regex(/^[0-9a-f]{64}$/) }).optional(),
});

export type BackupHeader = z.infer<typeof backupHeaderSchema>;

/** The lines a backup file begins with; the JSON line padded with spaces to `width` bytes when given. */
export function headerBytes(header: BackupHeader, width = 0): Buffer {
  const line = Buffer.from(`${MAGIC}\n${JSON.stringify(header)}`);
  return Buffer.concat([line, Buffer.alloc(Math.max(0, width - line.length - 1), ' '), Buffer.from('\n')]);
}

/** The length and SHA-256 of a dump held in memory. */
export function dumpDigest(dump: Buffer): NonNullable<BackupHeader['dump']> {
  return { bytes: dump.length, sha256: createHash('sha256').update(dump).digest('hex') };
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
export async function writeAtomically(
  file: string,
  write: (stream: fs.WriteStream) => Promise<void>,
  seal?: (partial: string) => void,
): Promise<void> {
  const partial = `${file}.partial`;
  const stream = fs.createWriteStream(partial, { mode: 0o600 });
  try {
    await write(stream);
    await new Promise<void>((resolve, reject) => {
      stream.once('error', reject);
      stream.end(resolve);
    });
    seal?.(partial);
    fs.renameSync(partial, file);
  } catch (error) {
    stream.destroy();
    fs.rmSync(partial, { force: true });
    throw error;
  }
}

/**
 * Writes a backup file whose dump `writeDump` streams: the header goes first with room for the
 * dump's length and checksum, which are written into it once the dump is complete (a JSON line
 * padded with spaces, so the dump need not be held or copied).
 */
export async function writeStreamedBackup(
  file: string,
  header: BackupHeader,
  writeDump: (sink: NodeJS.WritableStream) => Promise<void>,
): Promise<BackupHeader> {
  const width = headerBytes({ ...header, dump: { bytes: Number.MAX_SAFE_INTEGER, sha256: '0'.repeat(64) } }).length;
  const hash = createHash('sha256');
  let bytes = 0;
  let complete: BackupHeader = header;
  await writeAtomically(
    file,
    async (stream) => {
      stream.write(headerBytes(header, width));
      const sink = new Writable({
        write(chunk: Buffer, _encoding, done) {
          hash.update(chunk);
          bytes += chunk.length;
          if (stream.write(chunk)) done();
          else stream.once('drain', () => done());
        },
      });
      await writeDump(sink);
      // Every chunk handed to the sink has reached the file stream (and the hash) once it finishes.
      await new Promise<void>((resolve, reject) => {
        sink.once('error', reject);
        sink.end(resolve);
      });
    },
    (partial) => {
      complete = { ...header, dump: { bytes, sha256: hash.digest('hex') } };
      const fd = fs.openSync(partial, 'r+');
      try {
        fs.writeSync(fd, headerBytes(complete, width), 0, width, 0);
      } finally {
        fs.closeSync(fd);
      }
    },
  );
  return complete;
}

/**
 * Throws when the dump after `offset` is not the one the header describes (cut short, altered, or
 * another file behind a copied header). Answers false for a backup whose header has no checksum.
 */
export async function verifyChecksum(file: string, header: BackupHeader, offset: number): Promise<boolean> {
  if (!header.dump) return false;
  const bytes = fs.statSync(file).size - offset;
  if (bytes !== header.dump.bytes) {
    throw new Error(
      `${file} is damaged: its dump is ${bytes} bytes, the backup recorded ${header.dump.bytes} (a file cut short or ` +
        'a different file). Nothing was changed; restore an intact copy.',
    );
  }
  const hash = createHash('sha256');
  for await (const chunk of fs.createReadStream(file, { start: offset })) hash.update(chunk as Buffer);
  if (hash.digest('hex') !== header.dump.sha256) {
    throw new Error(
      `${file} is damaged: its dump does not match the SHA-256 the backup recorded. Nothing was changed; restore an intact copy.`,
    );
  }
  return true;
}
