import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { pipeline } from 'node:stream/promises';

/**
 * PostgreSQL's own client tools do the dump and the restore: `pg_dump --format=custom` and
 * `pg_restore`. They must be on PATH, of the server's major version or newer.
 */
export class MissingClientToolError extends Error {}

function missingTool(tool: string): MissingClientToolError {
  return new MissingClientToolError(
    `${tool} was not found on PATH. Install PostgreSQL's client tools of the server's major version or newer ` +
      `(Debian/Ubuntu: apt-get install postgresql-client; Alpine: apk add postgresql-client), then run the command again.`,
  );
}

/** Runs `tool` with `args`, feeding it `input` and/or streaming its stdout to `output`; rejects with its stderr. */
async function run(
  tool: string,
  args: string[],
  io: { input?: NodeJS.ReadableStream; output?: NodeJS.WritableStream },
): Promise<void> {
  const child = spawn(tool, args, { stdio: [io.input ? 'pipe' : 'ignore', io.output ? 'pipe' : 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', (error: NodeJS.ErrnoException) => reject(error.code === 'ENOENT' ? missingTool(tool) : error));
    child.once('close', resolve);
  });
  const streams: Promise<void>[] = [];
  if (io.input && child.stdin) {
    // pg_restore may exit early on an error: its closed stdin is then no error of ours.
    child.stdin.on('error', () => {});
    streams.push(pipeline(io.input, child.stdin).catch(() => {}));
  }
  if (io.output && child.stdout) streams.push(pipeline(child.stdout, io.output, { end: false }));
  const code = await exited;
  await Promise.all(streams);
  if (code !== 0) throw new Error(`${tool} failed (exit ${code}): ${stderr.trim()}`);
}

/** `pg_dump --format=custom` of the database at `url`, written to `output` (left open). */
export function pgDump(url: string, output: NodeJS.WritableStream): Promise<void> {
  return run('pg_dump', ['--format=custom', '--no-owner', '--no-privileges', `--dbname=${url}`], { output });
}

/**
 * `pg_restore` of the custom-format dump in `file` from byte `offset`, into the database at `url`,
 * in one transaction that stops at the first error. Objects are owned by the connecting user.
 */
export function pgRestore(url: string, file: string, offset: number): Promise<void> {
  return run(
    'pg_restore',
    ['--no-owner', '--no-privileges', '--exit-on-error', '--single-transaction', `--dbname=${url}`],
    { input: fs.createReadStream(file, { start: offset }) },
  );
}
