import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { activateDevice } from '@/tools/device-sim/activate';
import { DeviceClient } from '@/tools/device-sim/client';
import { built, type Running, startServer } from './start-server';

/**
 * The security review's heap exhaustion, against `npm start`'s real server with its default heap
 * (HEAP_MB, 256 MB): 100 rules of 5 replies of `{{text}}` × 200, all `continue`, and a rule test
 * with a 1,600-character text. Each reply once rendered to 320,000 characters before being cut,
 * all 500 at once, and the process died; now the reply stops at the length limit and one message
 * plans at most AUTOMATION_STEPS_PER_MESSAGE actions. The account's plan caps its rules' actions
 * (PLAN_FREE_RULE_ACTIONS), raised here so that the 500 actions fit. On TEST_DATABASE_URL's server
 * when that is set, on an embedded database otherwise. Needs a build (test/start-server.ts).
 */

async function serverDatabase(dataDir: string): Promise<{ env: Record<string, string>; drop: () => Promise<void> }> {
  const testUrl = process.env.TEST_DATABASE_URL;
  if (!testUrl) return { env: { DATA_DIR: dataDir }, drop: async () => {} };
  const name = `simgate_heap_${process.pid}_${Date.now()}`;
  const admin = postgres(testUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(testUrl);
  url.pathname = `/${name}`;
  return {
    env: {
      DATA_DIR: dataDir,
      DATABASE_URL: url.toString(),
      APP_SECRET: 'heap-test-secret-heap-test-secret-0123456789abc',
      DEV_INBOX: '1',
    },
    drop: async () => {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

describe.runIf(built)('an inbound-rule test that once exhausted the heap', () => {
  let dataDir: string | undefined;
  let server: Running | undefined;
  let drop: (() => Promise<void>) | undefined;

  afterAll(async () => {
    server?.stop();
    await server?.exited;
    await drop?.();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers with a bounded body, and the process lives and answers its probe', { timeout: 300_000 }, async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-heap-'));
    const database = await serverDatabase(dataDir);
    drop = database.drop;
    // npm start's heap (package.json: --max-old-space-size=${HEAP_MB:-256}).
    server = await startServer(
      { ...database.env, NODE_OPTIONS: '--max-old-space-size=256', PLAN_FREE_RULE_ACTIONS: '500' },
      false,
    );
    const { baseUrl } = server;
    const phone = '+14155550144';
    const activation = await activateDevice(new DeviceClient({ baseUrl }), {
      phone,
      email: 'heap@example.test',
      apiKeyName: 'heap',
    });
    const headers = { 'x-api-key': activation.apiKey!, 'content-type': 'application/json' };
    const reply = { type: 'reply', content: '{{text}}'.repeat(200) };
    for (let index = 0; index < 100; index++) {
      const created = await fetch(`${baseUrl}/api/v1/inbound-rules`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ name: `rule ${index}`, continue: true, actions: Array(5).fill(reply) }),
      });
      expect(created.status, await created.clone().text()).toBe(201);
    }

    const tested = await fetch(`${baseUrl}/api/v1/inbound-rules/test`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ phone, from: '+14155550999', text: '€'.repeat(1600) }),
    }).catch((error: unknown) => error);
    expect(tested, `${server.stderr().slice(-2000)}`).toBeInstanceOf(Response);
    const answer = tested as Response;
    expect(answer.status).toBe(200);
    const body = await answer.text();
    expect(body.length).toBeLessThan(1_000_000);
    const result = JSON.parse(body) as { rules: { actions: { would: string; reason?: string }[] }[] };
    const actions = result.rules.flatMap((rule) => rule.actions);
    expect(actions).toHaveLength(500);
    expect(actions.filter((action) => action.reason === 'step_budget_reached').length).toBeGreaterThan(0);

    expect(server.child.exitCode).toBeNull();
    expect((await fetch(`${baseUrl}/api/health/live`)).status).toBe(200);
    expect(server.stderr()).not.toMatch(/heap out of memory/);
  });
});
