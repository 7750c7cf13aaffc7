import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { embeddedFolder, openPglite, queryRows, runMigrations } from '@/db';
import { ENDPOINT_FILE } from '@/lib/backup/live';
import { createTestAccount, type TestAccount, testNumber } from './fixtures';
import { built, type Running, startServer } from './start-server';

/**
 * The embedded database while `npm start` runs: only the server may open its folder, so
 * `npm run ops -- backup` has the server take the backup (lib/backup/live.ts), and sends go on.
 */

const SECRET = 'backup-live-secret-0123456789abcdefghijklmnop';
const run = promisify(execFile);
const TSX = path.join(process.cwd(), 'node_modules', '.bin', 'tsx');
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-backup-live-'));
const dataDir = path.join(folder, 'data');
const backupFile = path.join(folder, 'live.backup');
let server: Running | undefined;
let account: TestAccount;

async function ops(dir: string, ...args: string[]) {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dir, APP_SECRET: SECRET };
  delete env.DATABASE_URL;
  try {
    const { stdout, stderr } = await run(TSX, ['scripts/ops.ts', ...args], { env, cwd: process.cwd() });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

async function send(): Promise<number> {
  const response = await fetch(`${server!.baseUrl}/api/v1/messages`, {
    method: 'POST',
    headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ from: account.phone, to: testNumber(), content: 'during the backup' }),
  });
  return response.status;
}

beforeAll(async () => {
  if (!built) return;
  fs.mkdirSync(dataDir);
  const handle = await openPglite(embeddedFolder(dataDir));
  await runMigrations(handle);
  account = await createTestAccount(handle.db, { credits: 1000 });
  await handle.close();
  server = await startServer({ DATA_DIR: dataDir, APP_SECRET: SECRET });
}, 120_000);

afterAll(() => {
  server?.stop();
  fs.rmSync(folder, { recursive: true, force: true });
});

describe.runIf(built)('backing up the embedded database while the server runs', () => {
  it('is taken by the server, on a token in a file only the operator can read, while sends go on', async () => {
    const endpoint = path.join(dataDir, ENDPOINT_FILE);
    expect(fs.statSync(endpoint).mode & 0o777).toBe(0o600);

    const backup = ops(dataDir, 'backup', backupFile);
    let done = false;
    void backup.then(() => {
      done = true;
    });
    const statuses: number[] = [];
    while (!done) statuses.push(await send());
    statuses.push(await send());
    expect(new Set(statuses)).toEqual(new Set([201]));

    const result = await backup;
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/Backed up the embedded database .* taken by running server\./);
  }, 120_000);

  it('answers a wrong token with a refusal, and nothing else', async () => {
    const { port } = JSON.parse(fs.readFileSync(path.join(dataDir, ENDPOINT_FILE), 'utf8'));
    const answer = await new Promise<string>((resolve, reject) => {
      let received = '';
      const socket = net.connect(port, '127.0.0.1', () => socket.write(`${'0'.repeat(64)}\n`));
      socket.on('data', (chunk) => {
        received += chunk.toString();
      });
      socket.once('error', reject);
      socket.once('end', () => resolve(received));
    });
    expect(answer).toBe('ERR wrong token\n');
  });

  it('refuses to restore while the server holds the folder, and restores once it is stopped', async () => {
    const refused = await ops(dataDir, 'restore', backupFile, '--force');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/A Simgate server \(pid \d+\) is running on .*: stop it, run restore again/);

    server!.child.kill('SIGTERM');
    expect(await server!.exited).toBe(0);
    expect(fs.existsSync(path.join(dataDir, ENDPOINT_FILE))).toBe(false);

    const elsewhere = path.join(folder, 'restored');
    const restored = await ops(elsewhere, 'restore', backupFile);
    expect(restored.stderr).toBe('');
    expect(restored.code).toBe(0);
    const handle = await openPglite(embeddedFolder(elsewhere));
    try {
      const [row] = await queryRows<{ n: number }>(handle.db, sql`select count(*)::int as n from accounts`);
      expect(row?.n).toBe(1);
    } finally {
      await handle.close();
    }
  }, 120_000);
});
