import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPglite, runMigrations } from '@/db/client';
import { createTestAccount, type TestAccount } from './fixtures';

const run = promisify(execFile);
const TSX = path.join(process.cwd(), 'node_modules', '.bin', 'tsx');

let dataDir: string;
let account: TestAccount;

/** `npm run ops -- …` as an operator runs it, against the embedded database in `dataDir`. */
async function ops(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir };
  delete env.DATABASE_URL;
  try {
    const { stdout, stderr } = await run(TSX, ['scripts/ops.ts', ...args], { env, cwd: process.cwd() });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-ops-'));
  // Seeded and closed before the CLI opens it: one process per embedded data folder.
  const handle = await openPglite(path.join(dataDir, 'pglite'));
  await runMigrations(handle);
  account = await createTestAccount(handle.db);
  await handle.close();
});

afterAll(() => {
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('npm run ops', () => {
  it('lists accounts, shows one, grants credits and revokes a device, exiting 0', async () => {
    const listed = await ops('accounts');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`${account.email}\\s+free\\s+1\\s+1\\s+100`));

    const granted = await ops('grant', '--group', String(account.defaultGroupId), '--amount', '25', '--note', 'promo');
    expect(granted).toMatchObject({ code: 0, stderr: '' });
    expect(granted.stdout).toContain('balance now 125');

    const shown = await ops('--json', 'show', account.email);
    expect(shown.code).toBe(0);
    const details = JSON.parse(shown.stdout);
    expect(details.groups[0]).toMatchObject({ id: account.defaultGroupId, balance: 125 });
    expect(shown.stdout).not.toContain(account.apiKey);

    const revoked = await ops('revoke-device', account.deviceId);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`Revoked device ${account.deviceId}`);
  }, 120_000);

  it('exits 1 with a clear message on bad input', async () => {
    const cases: Array<[string[], RegExp]> = [
      [['show', 'ghost@example.test'], /No account with id or email "ghost@example.test"/],
      [['grant', '--group', String(account.defaultGroupId), '--amount', '-5'], /amount: must be a whole number/],
      [['grant', '--group', '2147483647', '--amount', '5'], /Phone group 2147483647 does not exist/],
      [['grant', '--group', '1'], /required option '--amount/],
      [['no-such-command'], /unknown command/],
    ];
    for (const [args, message] of cases) {
      const result = await ops(...args);
      expect(result.code, args.join(' ')).toBe(1);
      expect(result.stderr).toMatch(message);
    }
  }, 180_000);
});
