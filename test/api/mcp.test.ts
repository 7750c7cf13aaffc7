import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { POST as received } from '@/app/api/v1/device/messages/received/route';
import { POST as mcpPost } from '@/app/mcp/route';
import { apiKeys } from '@/db/schema';
import { generateKey } from '@/lib/auth/keys';
import { metrics } from '@/lib/metrics/registry';
import { MAX_MCP_BATCH } from '@/lib/protocols/mcp/server';
import { resetKeyBuckets } from '@/lib/rate-limit/key-bucket';
import { createRevokedKey, createTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

// The door is off unless the operator turns it on (MCP_ENABLED).
beforeEach(() => {
  vi.stubEnv('MCP_ENABLED', '1');
});
afterEach(() => {
  vi.unstubAllEnvs();
});

/** The MCP endpoint served in-process: POST to the route, and 405 for the GET stream it does not offer. */
async function serve(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const req = new Request(input, init);
  if (req.method !== 'POST') return new Response(null, { status: 405, headers: { allow: 'POST' } });
  return mcpPost(req, { params: Promise.resolve({}) });
}

async function connect(apiKey: string): Promise<Client> {
  const client = new Client({ name: 'simgate-test', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('http://localhost:3000/mcp'), {
    requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
    fetch: serve,
  });
  await client.connect(transport);
  return client;
}

type Result = { isError?: boolean; structuredContent?: any; content: Array<{ type: string; text?: string }> };

async function use(client: Client, name: string, args: Record<string, unknown> = {}): Promise<Result> {
  return (await client.callTool({ name, arguments: args })) as Result;
}

async function mcpCount(tool: string, outcome: string): Promise<number> {
  const values = (await metrics.mcpCalls.get()).values;
  return values.find((v) => v.labels.tool === tool && v.labels.outcome === outcome)?.value ?? 0;
}

describe('the MCP server, driven by the SDK’s client', () => {
  it('lists every tool with the input schema of its REST operation', async () => {
    const account = await createTestAccount(db());
    const client = await connect(account.apiKey);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([
      'cancel_message',
      'get_balance',
      'get_conversation',
      'get_message',
      'list_conversations',
      'list_messages',
      'list_phones',
      'send_sms',
    ]);
    const sendSms = tools.find((t) => t.name === 'send_sms')!;
    expect(sendSms.inputSchema.required).toEqual(['to', 'content']);
    expect(Object.keys(sendSms.inputSchema.properties ?? {})).toEqual(
      expect.arrayContaining(['to', 'content', 'from', 'from_group', 'send_at', 'request_id']),
    );
    const listMessages = tools.find((t) => t.name === 'list_messages')!;
    expect((listMessages.inputSchema.properties as any).status.enum).toContain('delivered');
    await client.close();
  });

  it('sends an SMS, reads it back, sees the reply in the conversation, and cancels', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const client = await connect(account.apiKey);
    const to = testNumber();
    const before = await mcpCount('send_sms', 'ok');

    const sent = await use(client, 'send_sms', { from: account.phone, to, content: 'Table for two at 8?' });
    expect(sent.isError).toBeFalsy();
    expect(sent.structuredContent).toMatchObject({ to, content: 'Table for two at 8?', status: 'queued' });
    expect(JSON.parse(sent.content[0]!.text!)).toEqual(sent.structuredContent);
    const id = sent.structuredContent.id as string;
    expect(await mcpCount('send_sms', 'ok')).toBe(before + 1);
    const accepted = (await metrics.messagesAccepted.get()).values.find((v) => v.labels.surface === 'mcp');
    expect(accepted?.value).toBeGreaterThanOrEqual(1);

    const read = await use(client, 'get_message', { id });
    expect(read.structuredContent).toMatchObject({ id, status: 'queued', history: [{ status: 'queued' }] });
    const listed = await use(client, 'list_messages', { direction: 'outbound' });
    expect(listed.structuredContent.data.map((m: { id: string }) => m.id)).toEqual([id]);
    const balance = await use(client, 'get_balance');
    expect(balance.structuredContent.total).toBe(4);
    const phones = await use(client, 'list_phones');
    expect(phones.structuredContent.data).toEqual([expect.objectContaining({ phone: account.phone })]);

    const reply = await call(received, {
      body: { from: to, content: 'Yes please', device_message_id: crypto.randomUUID() },
      apiKey: account.deviceKey,
    });
    expect(reply.status).toBe(201);
    const conversations = await use(client, 'list_conversations');
    expect(conversations.structuredContent.data).toEqual([
      expect.objectContaining({
        number: to,
        message_count: 2,
        last_message: expect.objectContaining({ content: 'Yes please' }),
      }),
    ]);
    const thread = await use(client, 'get_conversation', { number: to });
    expect(thread.structuredContent.data.map((m: { content: string }) => m.content)).toEqual([
      'Yes please',
      'Table for two at 8?',
    ]);

    const cancelled = await use(client, 'cancel_message', { id });
    expect(cancelled.structuredContent).toMatchObject({ id, status: 'cancelled' });
    expect((await use(client, 'get_balance')).structuredContent.total).toBe(5);
    await client.close();
  });

  it('answers refusals with the problem’s code, detail and field errors, and sends nothing', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const other: TestAccount = await createTestAccount(db(), { credits: 5 });
    const client = await connect(account.apiKey);

    const invalid = await use(client, 'send_sms', { from: account.phone, to: 'not a number', content: 'x' });
    expect(invalid.isError).toBe(true);
    expect(invalid.structuredContent).toMatchObject({
      code: 'VALIDATION_ERROR',
      errors: [expect.objectContaining({ path: 'to' })],
    });
    expect(JSON.parse(invalid.content[0]!.text!).code).toBe('VALIDATION_ERROR');

    const neither = await use(client, 'send_sms', { to: testNumber(), content: 'x' });
    expect(neither.structuredContent).toMatchObject({
      code: 'VALIDATION_ERROR',
      detail: expect.stringContaining('from'),
    });
    const foreignPhone = await use(client, 'send_sms', { from: other.phone, to: testNumber(), content: 'x' });
    expect(foreignPhone.structuredContent.code).toBe('FORBIDDEN');
    const otherSent = await call((await import('@/app/api/v1/messages/route')).POST, {
      body: { from: other.phone, to: testNumber(), content: 'theirs' },
      apiKey: other.apiKey,
    });
    const foreignMessage = await use(client, 'get_message', { id: otherSent.body.id });
    expect(foreignMessage.structuredContent).toMatchObject({ code: 'NOT_FOUND', detail: expect.any(String) });
    const unknown = await use(client, 'drop_tables');
    expect(unknown).toMatchObject({ isError: true, structuredContent: { code: 'NOT_FOUND' } });

    expect((await use(client, 'list_messages')).structuredContent.data).toEqual([]);
    expect((await use(client, 'get_balance')).structuredContent.total).toBe(5);
    expect(await mcpCount('send_sms', 'FORBIDDEN')).toBeGreaterThanOrEqual(1);
    await client.close();
  });

  it('answers a small batch, refuses one past the bound, and counts every message against the key', async () => {
    const account = await createTestAccount(db());
    const headers = { accept: 'application/json, text/event-stream', authorization: `Bearer ${account.apiKey}` };
    const list = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });
    const two = await call(mcpPost, { path: '/mcp', body: [list(1), list(2)], headers });
    expect(two.status).toBe(200);
    expect(two.body.map((answer: { id: number }) => answer.id).sort()).toEqual([1, 2]);
    const tooMany = Array.from({ length: MAX_MCP_BATCH + 1 }, (_, i) => list(i));
    const refused = await call(mcpPost, { path: '/mcp', body: tooMany, headers });
    expect(refused.status).toBe(400);
    expect(refused.body.code).toBe('VALIDATION_ERROR');

    // A key allowed 15 requests a second: one batch of 10 takes 10 tokens, so a second one is refused.
    process.env.API_KEY_RATE_LIMIT = '15';
    resetKeyBuckets();
    try {
      const batch = Array.from({ length: MAX_MCP_BATCH }, (_, i) => list(i));
      expect((await call(mcpPost, { path: '/mcp', body: batch, headers })).status).toBe(200);
      const second = await call(mcpPost, { path: '/mcp', body: batch, headers });
      expect(second.status).toBe(429);
      expect(second.body.code).toBe('RATE_LIMITED');
    } finally {
      process.env.API_KEY_RATE_LIMIT = '0';
      resetKeyBuckets();
    }
  });

  it('holds a key with a role to what the role may: a viewer key reads and cannot send', async () => {
    const account = await createTestAccount(db());
    const key = generateKey('account');
    await db()
      .insert(apiKeys)
      .values({ accountId: account.accountId, name: 'viewer', keyHash: key.hash, prefix: key.prefix, role: 'viewer' });
    const client = await connect(key.key);
    const sent = await use(client, 'send_sms', { to: testNumber(), content: 'hi', from: account.phone });
    expect(sent.isError).toBe(true);
    expect(sent.structuredContent).toMatchObject({
      code: 'FORBIDDEN',
      detail: expect.stringContaining('(viewer) may not'),
    });
    expect((await use(client, 'list_messages')).isError).toBeFalsy();
    await client.close();
  });

  it('refuses a request without a key, or with a revoked one, before any tool runs', async () => {
    const account = await createTestAccount(db());
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const headers = { accept: 'application/json, text/event-stream' };
    const none = await call(mcpPost, { path: '/mcp', body, headers });
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('UNAUTHENTICATED');
    const revoked = await createRevokedKey(db(), account.accountId);
    const stale = await call(mcpPost, {
      path: '/mcp',
      body,
      headers: { ...headers, authorization: `Bearer ${revoked}` },
    });
    expect(stale.status).toBe(401);
    await expect(connect(revoked)).rejects.toThrow();
  });
});

describe('MCP_ENABLED', () => {
  it('off, /mcp answers 404 and runs no tool', async () => {
    vi.stubEnv('MCP_ENABLED', '0');
    const account = await createTestAccount(db());
    const res = await call(mcpPost, {
      method: 'POST',
      headers: { authorization: `Bearer ${account.apiKey}` },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'NOT_FOUND' });
  });
});
