import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';

const run = promisify(execFile);
const TSX = path.join(process.cwd(), 'node_modules', '.bin', 'tsx');
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-config-cli-'));

afterAll(() => {
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** A script as an operator runs it (`npm run worker`, `npm run ops -- …`), with `env` on top of ours. */
async function script(file: string, args: string[], env: Record<string, string>) {
  const merged: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, ...env };
  try {
    const { stdout, stderr } = await run(TSX, [file, ...args], { env: merged, cwd: process.cwd() });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

const badServer = {
  DATABASE_URL: 'db.example.com:5432',
  APP_SECRET: 'short',
  APP_URL: '',
  API_KEY_RATE_LIMIT: 'abc',
  TRUST_PROXY: 'banana',
};

function expectEveryProblem(stderr: string): void {
  expect(stderr).toContain('Simgate cannot start:');
  expect(stderr).toMatch(/- API_KEY_RATE_LIMIT must be a non-negative integer, got "abc"/);
  expect(stderr).toMatch(/- DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL/);
  expect(stderr).toMatch(/- APP_SECRET must be at least 32 characters/);
  expect(stderr).toMatch(/- TRUST_PROXY "banana" is not a hop count/);
  expect(stderr).toMatch(/- APP_URL is required in server mode/);
}

describe('a command started with a bad configuration', () => {
  it('npm run worker refuses with exit 1 and one message listing every problem', async () => {
    const result = await script('scripts/worker.ts', [], badServer);
    expect(result.code).toBe(1);
    expectEveryProblem(result.stderr);
  }, 60_000);

  it('npm run ops refuses with exit 1 and one message listing every problem, before opening anything', async () => {
    const result = await script('scripts/ops.ts', ['accounts'], badServer);
    expect(result.code).toBe(1);
    expectEveryProblem(result.stderr);
    expect(result.stdout).toBe('');

    const local = await script('scripts/ops.ts', ['accounts'], { STARTER_CREDITS: 'many', BACKGROUND: 'maybe' });
    expect(local.code).toBe(1);
    expect(local.stderr).toMatch(/- STARTER_CREDITS must be a non-negative integer, got "many"/);
    expect(local.stderr).toMatch(/- BACKGROUND must be one of on, off, got "maybe"/);
    expect(fs.readdirSync(dataDir)).toEqual([]);
  }, 60_000);
});
