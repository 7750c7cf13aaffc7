import { randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/**
 * The embedded database allows one process per data folder, so while `npm start` runs, the server
 * takes the backup itself, on request from `npm run ops -- backup`: at start it listens on a port of
 * 127.0.0.1 chosen by the system and writes the port, a random token and its pid to
 * DATA_DIR/backup-endpoint.json (mode 0600, readable by the operator's account only). The ops command
 * connects, sends the token, and receives the backup file's bytes; sends go on meanwhile.
 *
 * Wire: the client writes `<token>\n`; the server answers `OK\n` and the file's bytes, or
 * `ERR <message>\n`, and closes.
 */
export const ENDPOINT_FILE = 'backup-endpoint.json';

type Endpoint = { pid: number; port: number; token: string };

const endpointPath = (dataDir: string) => path.join(dataDir, ENDPOINT_FILE);

/** Serves backups of the running server's embedded database; returns the function that stops it. */
export async function serveBackups(dataDir: string, take: () => Promise<Buffer[]>): Promise<() => Promise<void>> {
  const token = randomBytes(32).toString('hex');
  const server = net.createServer((socket) => {
    let received = '';
    socket.setTimeout(10_000, () => socket.destroy());
    socket.on('error', () => {});
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const end = received.indexOf('\n');
      if (end < 0) {
        if (received.length > 256) socket.destroy();
        return;
      }
      socket.removeAllListeners('data');
      socket.setTimeout(0);
      const offered = Buffer.from(received.slice(0, end));
      if (offered.length !== token.length || !timingSafeEqual(offered, Buffer.from(token))) {
        socket.end('ERR wrong token\n');
        return;
      }
      take().then(
        (parts) => {
          socket.write('OK\n');
          for (const part of parts) socket.write(part);
          socket.end();
        },
        (error: Error) => socket.end(`ERR ${error.message.replaceAll('\n', ' ')}\n`),
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  const file = endpointPath(dataDir);
  const partial = `${file}.${process.pid}`;
  fs.writeFileSync(partial, JSON.stringify({ pid: process.pid, port, token } satisfies Endpoint), { mode: 0o600 });
  fs.renameSync(partial, file);
  return async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    // Only our own: a server started after this one on the folder may have written its own.
    try {
      if ((JSON.parse(fs.readFileSync(file, 'utf8')) as Endpoint).token === token) fs.rmSync(file, { force: true });
    } catch {}
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Asks the server running on `dataDir` for a backup: its bytes, or undefined when no server runs
 * there (no endpoint file, or one left by a process that has exited). Throws when a server is
 * registered but does not answer, rather than open a folder another process may hold.
 */
export async function requestBackup(dataDir: string): Promise<Buffer | undefined> {
  const endpoint = readEndpoint(dataDir);
  if (!endpoint) return undefined;
  let answer: Buffer;
  try {
    answer = await exchange(endpoint);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ECONNREFUSED' && !alive(endpoint.pid)) return undefined;
    throw new Error(
      `A Simgate server (pid ${endpoint.pid}) is registered on ${dataDir} but did not answer on 127.0.0.1:${endpoint.port} ` +
        `(${(error as Error).message}). If no server runs on this folder, delete ${endpointPath(dataDir)} and run the command again.`,
    );
  }
  const end = answer.indexOf(0x0a);
  const status = answer.subarray(0, end).toString();
  if (status !== 'OK') throw new Error(`the running server could not take the backup: ${status.replace(/^ERR /, '')}`);
  return answer.subarray(end + 1);
}

/** Whether a live server is registered on `dataDir` (its process still running). */
export function serverRunning(dataDir: string): { pid: number } | undefined {
  const endpoint = readEndpoint(dataDir);
  return endpoint && alive(endpoint.pid) ? { pid: endpoint.pid } : undefined;
}

function readEndpoint(dataDir: string): Endpoint | undefined {
  try {
    return JSON.parse(fs.readFileSync(endpointPath(dataDir), 'utf8')) as Endpoint;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new Error(`cannot read ${endpointPath(dataDir)}: ${(error as Error).message}`);
  }
}

function exchange(endpoint: Endpoint): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(endpoint.port, '127.0.0.1', () => socket.write(`${endpoint.token}\n`));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.once('error', reject);
    socket.once('end', () => resolve(Buffer.concat(chunks)));
  });
}
