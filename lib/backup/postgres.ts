import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { RecordedVersion } from '@/db/schema-version';

/**
 * PostgreSQL's own client tools do the dump and the restore: `pg_dump --format=custom`, `pg_restore`
 * and `psql`. They must be on PATH, of the server's major version or newer.
 */
export class MissingClientToolError extends Error {}

function missingTool(tool: string): MissingClientToolError {
  return new MissingClientToolError(
    `${tool} was not found on PATH. Install PostgreSQL's client tools of the server's major version or newer ` +
      `(Debian/Ubuntu: apt-get install postgresql-client; Alpine: apk add postgresql-client), then run the command again.`,
  );
}

/**
 * Tables whose rows a backup leaves out (their definitions stay): the dev inbox holds sign-in and
 * SIM codes and the emails that carried them, which must not travel with a backup file.
 */
export const TABLES_WITHOUT_DATA = ['public.dev_inbox'];

const URL_PARTS = /^(postgres(?:ql)?:\/\/)([^/?#]*)([^#]*)(#.*)?$/i;

/**
 * How a client tool reaches the database at `url` without the password on its command line (where
 * `ps` shows it to every user of the machine): the URL without its password, and the password in
 * the environment (`PGPASSWORD`, which libpq reads). Other parts of libpq's URL stay as they are.
 */
export function libpqConnection(url: string): { dbname: string; env: Record<string, string> } {
  const parts = URL_PARTS.exec(url.trim());
  if (!parts) throw new Error('not a postgres:// or postgresql:// URL');
  const [, scheme = '', authority = '', rest = '', fragment = ''] = parts;
  let password: string | undefined;
  const at = authority.lastIndexOf('@');
  let userinfo = authority.slice(0, at + 1);
  const colon = userinfo.indexOf(':');
  if (colon >= 0) {
    password = decodeURIComponent(userinfo.slice(colon + 1, -1));
    userinfo = `${userinfo.slice(0, colon)}@`;
  }
  const question = rest.indexOf('?');
  let tail = rest;
  if (question >= 0) {
    const params = new URLSearchParams(rest.slice(question + 1));
    password = params.get('password') ?? password;
    params.delete('password');
    tail = rest.slice(0, question) + (params.size > 0 ? `?${params}` : '');
  }
  return {
    dbname: `${scheme}${userinfo}${authority.slice(at + 1)}${tail}${fragment}`,
    env: password ? { PGPASSWORD: password } : {},
  };
}

type Child = { child: ChildProcess; exited: Promise<void> };

/** Starts `tool`; `exited` rejects with its stderr when it exits non-zero. */
function start(tool: string, args: string[], stdio: { input: boolean; output: boolean }, env = {}): Child {
  const child = spawn(tool, args, {
    stdio: [stdio.input ? 'pipe' : 'ignore', stdio.output ? 'pipe' : 'ignore', 'pipe'],
    env: { ...process.env, ...env },
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    // Bounded: a tool that floods its stderr is reported by its first lines.
    if (stderr.length < 64 * 1024) stderr += chunk.toString();
  });
  // A tool may exit early on an error: its closed stdin is then no error of ours.
  child.stdin?.on('error', () => {});
  const exited = new Promise<void>((resolve, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) => reject(error.code === 'ENOENT' ? missingTool(tool) : error));
    child.once('close', (code) =>
      code === 0 ? resolve() : reject(new Error(`${tool} failed (exit ${code}): ${stderr.trim()}`)),
    );
  });
  return { child, exited };
}

/** Runs `tool` with `args`, feeding it `input` and/or streaming its stdout to `output` (left open). */
async function run(
  tool: string,
  args: string[],
  io: { input?: NodeJS.ReadableStream; output?: NodeJS.WritableStream },
  env: Record<string, string> = {},
): Promise<void> {
  const { child, exited } = start(tool, args, { input: Boolean(io.input), output: Boolean(io.output) }, env);
  const streams: Promise<void>[] = [];
  if (io.input && child.stdin) streams.push(pipeline(io.input, child.stdin).catch(() => {}));
  if (io.output && child.stdout) streams.push(pipeline(child.stdout, io.output, { end: false }));
  await exited;
  await Promise.all(streams);
}

/** The arguments and environment `pg_dump` runs with (exported for the test that no password is among them). */
export function pgDumpCommand(url: string): { args: string[]; env: Record<string, string> } {
  const { dbname, env } = libpqConnection(url);
  return {
    args: [
      '--format=custom',
      '--no-owner',
      '--no-privileges',
      ...TABLES_WITHOUT_DATA.map((table) => `--exclude-table-data=${table}`),
      `--dbname=${dbname}`,
    ],
    env,
  };
}

/** `pg_dump --format=custom` of the database at `url`, written to `output` (left open). */
export function pgDump(url: string, output: NodeJS.WritableStream): Promise<void> {
  const { args, env } = pgDumpCommand(url);
  return run('pg_dump', args, { output }, env);
}

const dumpFrom = (file: string, offset: number) => fs.createReadStream(file, { start: offset });

/** Names what went wrong reading `file` as a dump (another format, cut short, corrupt), saying nothing changed. */
function unreadableDump(file: string, error: unknown): Error {
  if (error instanceof MissingClientToolError) return error;
  return new Error(
    `${file} does not hold a readable PostgreSQL dump (${(error as Error).message}). Nothing was changed; restore an intact copy.`,
  );
}

/**
 * Reads the whole custom-format dump in `file` from `offset`, decompressing every table's data, and
 * throws when it is not a dump or ends early. (`pg_restore --list` reads only the table of contents
 * at the start: a dump cut short passes it.)
 */
export async function readThroughDump(file: string, offset: number): Promise<void> {
  await run('pg_restore', ['--file=/dev/null'], { input: dumpFrom(file, offset) }).catch((error) => {
    throw unreadableDump(file, error);
  });
}

/**
 * The rows of drizzle's migrations table and of simgate_schema_versions in the dump: which migrations
 * the backed-up database had, read from the dump itself rather than from the editable header.
 */
export async function dumpedMigrations(
  file: string,
  offset: number,
): Promise<{ applied: number[]; recorded: RecordedVersion[] }> {
  const chunks: Buffer[] = [];
  const output = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  await run(
    'pg_restore',
    ['--data-only', '--schema=drizzle', '--table=__drizzle_migrations', '--table=simgate_schema_versions', '--file=-'],
    { input: dumpFrom(file, offset), output },
  ).catch((error) => {
    throw unreadableDump(file, error);
  });
  const rows = copyRows(Buffer.concat(chunks).toString());
  return {
    applied: (rows.get('drizzle.__drizzle_migrations') ?? []).map((row) => Number(row.created_at)),
    recorded: (rows.get('drizzle.simgate_schema_versions') ?? []).map((row) => ({
      createdAt: Number(row.created_at),
      tag: row.tag ?? '',
      appVersion: row.app_version ?? '',
    })),
  };
}

/** The rows of each `COPY <table> (<columns>) FROM stdin;` block of pg_restore's SQL output, by table. */
function copyRows(script: string): Map<string, Array<Record<string, string>>> {
  const tables = new Map<string, Array<Record<string, string>>>();
  let rows: Array<Record<string, string>> | undefined;
  let columns: string[] = [];
  for (const line of script.split('\n')) {
    if (rows) {
      if (line === '\\.') rows = undefined;
      else rows.push(Object.fromEntries(line.split('\t').map((value, index) => [columns[index] ?? '', value])));
      continue;
    }
    const copy = /^COPY (\S+) \(([^)]*)\) FROM stdin;$/.exec(line);
    if (copy) {
      columns = (copy[2] ?? '').split(', ');
      rows = [];
      tables.set(copy[1] ?? '', rows);
    }
  }
  return tables;
}

/**
 * Replaces the database at `url` with the dump in `file` (from `offset`), all or nothing.
 *
 * `pg_restore --single-transaction` alone cannot be: the old schemas must be dropped first, and a
 * drop on another connection commits on its own, so a dump that fails halfway would leave an empty
 * database. Instead `pg_restore` only translates the dump to SQL (`--file=-`) and one `psql` session
 * runs, in one transaction of ours: BEGIN, the drops, that SQL (COPY … FROM stdin blocks included,
 * which psql streams), and COMMIT — written only once pg_restore has exited 0 and all its output has
 * gone through. Any failure before that (a dump that ends early, a statement that fails:
 * ON_ERROR_STOP) ends psql's session without COMMIT, and PostgreSQL rolls all of it back: the
 * database is then exactly as it was.
 */
export async function replaceWithDump(url: string, file: string, offset: number): Promise<void> {
  const { dbname, env } = libpqConnection(url);
  const psql = start(
    'psql',
    ['-X', '-q', '-v', 'ON_ERROR_STOP=1', `--dbname=${dbname}`],
    { input: true, output: false },
    env,
  );
  const restore = start('pg_restore', ['--no-owner', '--no-privileges', '--exit-on-error', '--file=-'], {
    input: true,
    output: true,
  });
  const { stdin } = psql.child;
  const { stdout } = restore.child;
  if (!stdin || !stdout || !restore.child.stdin) throw new Error('unreachable');
  // psql failing (an error in a statement) stops the translation too.
  psql.exited.catch(() => restore.child.kill());
  pipeline(dumpFrom(file, offset), restore.child.stdin).catch(() => {});
  stdin.write(
    'BEGIN;\nSET client_min_messages = warning;\n' +
      'DROP SCHEMA IF EXISTS drizzle CASCADE;\nDROP SCHEMA public CASCADE;\nCREATE SCHEMA public;\n',
  );
  const forwarded = pipeline(stdout, stdin, { end: false });
  const translated = await Promise.allSettled([restore.exited, forwarded]);
  if (translated.every((outcome) => outcome.status === 'fulfilled')) stdin.end('COMMIT;\n');
  else stdin.end();
  await psql.exited.catch((error: Error) => {
    throw error instanceof MissingClientToolError
      ? error
      : new Error(`the restore failed and was rolled back: nothing was changed (${error.message})`);
  });
  const failed = translated.find((outcome) => outcome.status === 'rejected');
  if (failed) throw unreadableDump(file, failed.reason);
}
