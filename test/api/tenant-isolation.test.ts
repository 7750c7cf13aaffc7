import { beforeAll, describe, expect, it } from 'vitest';
import * as twilioNumbers from '@/app/2010-04-01/Accounts/[accountSid]/IncomingPhoneNumbers.json/route';
import * as twilioMessage from '@/app/2010-04-01/Accounts/[accountSid]/Messages/[messageSid]/route';
import * as twilioMessages from '@/app/2010-04-01/Accounts/[accountSid]/Messages.json/route';
import * as twilioAccount from '@/app/2010-04-01/Accounts/[accountSid]/route';
import * as sgRevoke from '@/app/api/3rdparty/v1/auth/token/[jti]/route';
import * as sgToken from '@/app/api/3rdparty/v1/auth/token/route';
import * as sgInbox from '@/app/api/3rdparty/v1/inbox/route';
import * as sgLogs from '@/app/api/3rdparty/v1/logs/route';
import * as sgMessageOld from '@/app/api/3rdparty/v1/message/[id]/route';
import * as sgMessage from '@/app/api/3rdparty/v1/messages/[id]/route';
import * as sgMessages from '@/app/api/3rdparty/v1/messages/route';
import * as alertList from '@/app/api/v1/alerts/route';
import * as apiKey from '@/app/api/v1/auth/api-keys/[id]/route';
import * as apiKeys from '@/app/api/v1/auth/api-keys/route';
import * as bulkCancel from '@/app/api/v1/bulk-messages/[id]/cancel/route';
import * as bulkMessage from '@/app/api/v1/bulk-messages/[id]/route';
import * as bulkMessages from '@/app/api/v1/bulk-messages/route';
import * as conversation from '@/app/api/v1/conversations/[number]/route';
import * as conversations from '@/app/api/v1/conversations/route';
import * as balance from '@/app/api/v1/credits/balance/route';
import * as balanceHistory from '@/app/api/v1/credits/balance-history/route';
import * as ledger from '@/app/api/v1/credits/ledger/route';
import * as transfer from '@/app/api/v1/credits/transfer/route';
import * as deviceStatus from '@/app/api/v1/device/messages/[id]/status/route';
import * as deviceReceived from '@/app/api/v1/device/messages/received/route';
import * as heartbeats from '@/app/api/v1/heartbeats/route';
import * as inboundRule from '@/app/api/v1/inbound-rules/[id]/route';
import * as inboundRules from '@/app/api/v1/inbound-rules/route';
import * as inboundRulesTest from '@/app/api/v1/inbound-rules/test/route';
import * as messageCancel from '@/app/api/v1/messages/[id]/cancel/route';
import * as message from '@/app/api/v1/messages/[id]/route';
import * as messages from '@/app/api/v1/messages/route';
import * as optOut from '@/app/api/v1/opt-outs/[phone]/route';
import * as optOuts from '@/app/api/v1/opt-outs/route';
import * as group from '@/app/api/v1/phone-groups/[id]/route';
import * as groups from '@/app/api/v1/phone-groups/route';
import * as phoneDevice from '@/app/api/v1/phones/[id]/devices/[device_id]/route';
import * as phoneDevices from '@/app/api/v1/phones/[id]/devices/route';
import * as phoneHeartbeats from '@/app/api/v1/phones/[id]/heartbeats/route';
import * as pairingCode from '@/app/api/v1/phones/[id]/pairing-code/route';
import * as phone from '@/app/api/v1/phones/[id]/route';
import * as simCheckResend from '@/app/api/v1/phones/[id]/sim-check/resend/route';
import * as simCheck from '@/app/api/v1/phones/[id]/sim-check/route';
import * as phones from '@/app/api/v1/phones/route';
import * as emailSmsSettings from '@/app/api/v1/settings/email-to-sms/route';
import * as smppCredential from '@/app/api/v1/smpp/credentials/[system_id]/route';
import * as smppCredentials from '@/app/api/v1/smpp/credentials/route';
import * as twilioToken from '@/app/api/v1/twilio/auth-token/route';
import * as resend from '@/app/api/v1/webhooks/[id]/deliveries/[delivery_id]/resend/route';
import * as delivery from '@/app/api/v1/webhooks/[id]/deliveries/[delivery_id]/route';
import * as deliveries from '@/app/api/v1/webhooks/[id]/deliveries/route';
import * as rotateSecret from '@/app/api/v1/webhooks/[id]/rotate-secret/route';
import * as webhook from '@/app/api/v1/webhooks/[id]/route';
import * as webhookSecret from '@/app/api/v1/webhooks/[id]/secret/route';
import * as webhookTest from '@/app/api/v1/webhooks/[id]/test/route';
import * as webhooks from '@/app/api/v1/webhooks/route';
import { alerts } from '@/db/schema';
import type { RouteHandler } from '@/lib/http/route';
import { accountSidOf, messageSidOf, messagingServiceSidOf } from '@/lib/protocols/twilio/ids';
import { createTestAccount, type TestAccount } from '../fixtures';
import { type CallOptions, call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

/** What account A owns; every id is A's, and account B walks the whole API with them. */
type Owned = {
  phoneId: string;
  groupId: number;
  messageId: string;
  bulkId: string;
  webhookId: string;
  deliveryId: string;
  keyId: string;
  ruleId: string;
  alertId: string;
  smppSystemId: string;
};

let a: TestAccount;
let b: TestAccount;
let owned: Owned;
/** A number that opted out of account A only. */
const OPTED_OUT = '+14155550777';

async function ok<T = any>(handler: RouteHandler, options: CallOptions): Promise<T> {
  const res = await call(handler, options);
  if (res.status >= 300) throw new Error(`setup call answered ${res.status}: ${res.text}`);
  return res.body as T;
}

beforeAll(async () => {
  a = await createTestAccount(db(), { plan: 'pro' });
  b = await createTestAccount(db(), { plan: 'pro' });
  const key = a.apiKey;
  const sent = await ok(messages.POST, { body: { from: a.phone, to: '+14155550123', content: 'hi' }, apiKey: key });
  const bulk = await ok(bulkMessages.POST, {
    body: { from: a.phone, recipients: ['+14155550124'], content: 'hi' },
    apiKey: key,
  });
  const createdGroup = await ok(groups.POST, { body: { name: 'Sales' }, apiKey: key });
  const createdHook = await ok(webhooks.POST, {
    body: { url: 'https://hooks.example.test/a', events: ['message.sent'] },
    apiKey: key,
  });
  const test = await ok(webhookTest.POST, { params: { id: createdHook.id }, apiKey: key });
  const createdKey = await ok(apiKeys.POST, { body: { name: 'second' }, apiKey: key });
  await ok(heartbeats.POST, { body: { phone: a.phone, status: 'online', battery: 50 }, apiKey: key });
  await ok(optOuts.POST, { body: { phone: OPTED_OUT }, apiKey: key });
  const rule = await ok(inboundRules.POST, {
    body: { name: 'A’s rule', match: { keyword: 'hours' }, actions: [{ type: 'reply', content: 'A is open' }] },
    apiKey: key,
  });
  const smpp = await ok(smppCredentials.POST, { body: {}, apiKey: key });
  const [alert] = await db()
    .insert(alerts)
    .values({
      accountId: a.accountId,
      kind: 'battery_low',
      subjectType: 'phone',
      subjectId: a.phoneId,
      subjectName: a.phone,
      values: { battery: 5, threshold_percent: 15 },
    })
    .returning({ id: alerts.id });
  owned = {
    alertId: alert!.id,
    phoneId: a.phoneId,
    groupId: createdGroup.id,
    messageId: sent.id,
    bulkId: bulk.id,
    webhookId: createdHook.id,
    deliveryId: test.id,
    keyId: createdKey.id,
    ruleId: rule.id,
    smppSystemId: smpp.system_id,
  };
});

type Probe = { name: string; handler: RouteHandler; options: () => CallOptions; expect: [number, string] };

const NOT_FOUND: [number, string] = [404, 'NOT_FOUND'];
const GROUP_NOT_FOUND: [number, string] = [404, 'GROUP_NOT_FOUND'];
const FORBIDDEN: [number, string] = [403, 'FORBIDDEN'];

const probes: Probe[] = [
  { name: 'GET phone', handler: phone.GET, options: () => ({ params: { id: owned.phoneId } }), expect: NOT_FOUND },
  {
    name: 'PATCH phone',
    handler: phone.PATCH,
    options: () => ({ params: { id: owned.phoneId }, body: { label: 'mine now' }, method: 'PATCH' }),
    expect: NOT_FOUND,
  },
  {
    name: 'DELETE phone',
    handler: phone.DELETE,
    options: () => ({ params: { id: owned.phoneId }, method: 'DELETE' }),
    expect: NOT_FOUND,
  },
  {
    name: 'GET phone devices',
    handler: phoneDevices.GET,
    options: () => ({ params: { id: owned.phoneId } }),
    expect: NOT_FOUND,
  },
  {
    name: 'DELETE (revoke) the phone’s device',
    handler: phoneDevice.DELETE,
    options: () => ({ params: { id: owned.phoneId, device_id: a.deviceId }, method: 'DELETE' }),
    expect: NOT_FOUND,
  },
  {
    name: 'DELETE the phone’s device through one of B’s phones',
    handler: phoneDevice.DELETE,
    options: () => ({ params: { id: b.phoneId, device_id: a.deviceId }, method: 'DELETE' }),
    expect: NOT_FOUND,
  },
  {
    name: 'POST pairing code for the phone',
    handler: pairingCode.POST,
    options: () => ({ params: { id: owned.phoneId }, method: 'POST' }),
    expect: NOT_FOUND,
  },
  {
    name: 'POST SIM check code for the phone',
    handler: simCheck.POST,
    options: () => ({ params: { id: owned.phoneId }, body: { code: '123456' } }),
    expect: NOT_FOUND,
  },
  {
    name: 'POST SIM check resend for the phone',
    handler: simCheckResend.POST,
    options: () => ({ params: { id: owned.phoneId }, method: 'POST' }),
    expect: NOT_FOUND,
  },
  {
    name: 'GET phone heartbeats',
    handler: phoneHeartbeats.GET,
    options: () => ({ params: { id: owned.phoneId } }),
    expect: NOT_FOUND,
  },
  {
    name: 'POST phone into the other account’s group',
    handler: phones.POST,
    options: () => ({ body: { phone: '+14155550999', group_id: owned.groupId } }),
    expect: GROUP_NOT_FOUND,
  },
  {
    name: 'GET group',
    handler: group.GET,
    options: () => ({ params: { id: String(owned.groupId) } }),
    expect: GROUP_NOT_FOUND,
  },
  {
    name: 'PATCH group',
    handler: group.PATCH,
    options: () => ({ params: { id: String(owned.groupId) }, body: { name: 'Taken' }, method: 'PATCH' }),
    expect: GROUP_NOT_FOUND,
  },
  {
    name: 'DELETE group',
    handler: group.DELETE,
    options: () => ({ params: { id: String(owned.groupId) }, method: 'DELETE' }),
    expect: GROUP_NOT_FOUND,
  },
  {
    name: 'GET balance of the group',
    handler: balance.GET,
    options: () => ({ path: `/x?group_id=${owned.groupId}` }),
    expect: GROUP_NOT_FOUND,
  },
  {
    name: 'GET ledger of the group',
    handler: ledger.GET,
    options: () => ({ path: `/x?group_id=${owned.groupId}` }),
    expect: GROUP_NOT_FOUND,
  },
  {
    name: 'GET balance history of the group',
    handler: balanceHistory.GET,
    options: () => ({ path: `/x?group_id=${owned.groupId}` }),
    expect: GROUP_NOT_FOUND,
  },
  {
    name: 'POST transfer into the group',
    handler: transfer.POST,
    options: () => ({ body: { to_group: owned.groupId, amount: 1 } }),
    expect: GROUP_NOT_FOUND,
  },
  {
    name: 'POST transfer out of the group',
    handler: transfer.POST,
    options: () => ({ body: { from_group: owned.groupId, to_group: b.defaultGroupId, amount: 1 } }),
    expect: GROUP_NOT_FOUND,
  },
  {
    name: 'GET message',
    handler: message.GET,
    options: () => ({ params: { id: owned.messageId } }),
    expect: NOT_FOUND,
  },
  { name: 'GET bulk', handler: bulkMessage.GET, options: () => ({ params: { id: owned.bulkId } }), expect: NOT_FOUND },
  {
    name: 'POST message from the phone',
    handler: messages.POST,
    options: () => ({ body: { from: a.phone, to: '+14155550123', content: 'x' } }),
    expect: FORBIDDEN,
  },
  {
    name: 'POST bulk from the phone',
    handler: bulkMessages.POST,
    options: () => ({ body: { from: a.phone, recipients: ['+14155550123'], content: 'x' } }),
    expect: FORBIDDEN,
  },
  {
    name: 'POST message through the other account’s group',
    handler: messages.POST,
    options: () => ({ body: { from_group: owned.groupId, to: '+14155550123', content: 'x' } }),
    expect: GROUP_NOT_FOUND,
  },
  {
    name: 'POST bulk through the other account’s group',
    handler: bulkMessages.POST,
    options: () => ({ body: { from_group: owned.groupId, recipients: ['+14155550123'], content: 'x' } }),
    expect: GROUP_NOT_FOUND,
  },
  {
    name: 'POST cancel of the message',
    handler: messageCancel.POST,
    options: () => ({ params: { id: owned.messageId }, method: 'POST' }),
    expect: NOT_FOUND,
  },
  {
    name: 'POST cancel of the bulk',
    handler: bulkCancel.POST,
    options: () => ({ params: { id: owned.bulkId }, method: 'POST' }),
    expect: NOT_FOUND,
  },
  {
    name: 'PATCH the other account’s group’s sending settings',
    handler: group.PATCH,
    options: () => ({ params: { id: String(owned.groupId) }, body: { sending: { max_attempts: 5 } }, method: 'PATCH' }),
    expect: GROUP_NOT_FOUND,
  },
  {
    name: 'DELETE the other account’s opt-out',
    handler: optOut.DELETE,
    options: () => ({ params: { phone: OPTED_OUT }, method: 'DELETE' }),
    expect: NOT_FOUND,
  },
  {
    name: 'POST heartbeat for the phone',
    handler: heartbeats.POST,
    options: () => ({ body: { phone: a.phone, status: 'offline' } }),
    expect: FORBIDDEN,
  },
  {
    name: 'GET webhook',
    handler: webhook.GET,
    options: () => ({ params: { id: owned.webhookId } }),
    expect: NOT_FOUND,
  },
  {
    name: 'PATCH webhook',
    handler: webhook.PATCH,
    options: () => ({ params: { id: owned.webhookId }, body: { enabled: false }, method: 'PATCH' }),
    expect: NOT_FOUND,
  },
  {
    name: 'DELETE webhook',
    handler: webhook.DELETE,
    options: () => ({ params: { id: owned.webhookId }, method: 'DELETE' }),
    expect: NOT_FOUND,
  },
  {
    name: 'GET webhook secret',
    handler: webhookSecret.GET,
    options: () => ({ params: { id: owned.webhookId } }),
    expect: NOT_FOUND,
  },
  {
    name: 'POST rotate secret',
    handler: rotateSecret.POST,
    options: () => ({ params: { id: owned.webhookId }, method: 'POST' }),
    expect: NOT_FOUND,
  },
  {
    name: 'POST webhook test',
    handler: webhookTest.POST,
    options: () => ({ params: { id: owned.webhookId }, method: 'POST' }),
    expect: NOT_FOUND,
  },
  {
    name: 'GET deliveries',
    handler: deliveries.GET,
    options: () => ({ params: { id: owned.webhookId } }),
    expect: NOT_FOUND,
  },
  {
    name: 'GET delivery',
    handler: delivery.GET,
    options: () => ({ params: { id: owned.webhookId, delivery_id: owned.deliveryId } }),
    expect: NOT_FOUND,
  },
  {
    name: 'POST resend',
    handler: resend.POST,
    options: () => ({ params: { id: owned.webhookId, delivery_id: owned.deliveryId }, method: 'POST' }),
    expect: NOT_FOUND,
  },
  {
    name: 'GET inbound rule',
    handler: inboundRule.GET,
    options: () => ({ params: { id: owned.ruleId } }),
    expect: NOT_FOUND,
  },
  {
    name: 'PATCH inbound rule',
    handler: inboundRule.PATCH,
    options: () => ({ params: { id: owned.ruleId }, body: { enabled: false }, method: 'PATCH' }),
    expect: NOT_FOUND,
  },
  {
    name: 'DELETE inbound rule',
    handler: inboundRule.DELETE,
    options: () => ({ params: { id: owned.ruleId }, method: 'DELETE' }),
    expect: NOT_FOUND,
  },
  {
    name: 'POST inbound rule scoped to the phone',
    handler: inboundRules.POST,
    options: () => ({
      body: { name: 'x', scope: { phone_ids: [owned.phoneId] }, actions: [{ type: 'reply', content: 'x' }] },
    }),
    expect: NOT_FOUND,
  },
  {
    name: 'POST inbound rule scoped to the group',
    handler: inboundRules.POST,
    options: () => ({
      body: { name: 'x', scope: { group_ids: [owned.groupId] }, actions: [{ type: 'reply', content: 'x' }] },
    }),
    expect: GROUP_NOT_FOUND,
  },
  {
    name: 'POST inbound rule handing messages to the webhook',
    handler: inboundRules.POST,
    options: () => ({ body: { name: 'x', actions: [{ type: 'webhook', webhook_id: owned.webhookId }] } }),
    expect: NOT_FOUND,
  },
  {
    name: 'POST inbound rules test on the phone',
    handler: inboundRulesTest.POST,
    options: () => ({ body: { phone: a.phone, from: '+14155550123', text: 'hours' } }),
    expect: NOT_FOUND,
  },
  {
    name: 'DELETE api key',
    handler: apiKey.DELETE,
    options: () => ({ params: { id: owned.keyId }, method: 'DELETE' }),
    expect: NOT_FOUND,
  },
  {
    name: 'DELETE SMPP login',
    handler: smppCredential.DELETE,
    options: () => ({ params: { system_id: owned.smppSystemId }, method: 'DELETE' }),
    expect: NOT_FOUND,
  },
];

describe('a second account walking the API with the first account’s ids', () => {
  for (const probe of probes) {
    it(`${probe.name} answers ${probe.expect[0]} ${probe.expect[1]}`, async () => {
      const res = await call(probe.handler, { ...probe.options(), apiKey: b.apiKey });
      expect(res.status).toBe(probe.expect[0]);
      expect(res.body.code).toBe(probe.expect[1]);
    });
  }

  it('a second account’s device cannot report on the first account’s message', async () => {
    const res = await call(deviceStatus.POST, {
      params: { id: owned.messageId },
      body: { status: 'sent' },
      apiKey: b.deviceKey,
    });
    expect(res.status).toBe(404);
  });

  it('sees none of the first account’s resources in its lists', async () => {
    type Row = Record<string, unknown>;
    const lists: Array<[RouteHandler, (row: Row) => unknown, unknown]> = [
      [phones.GET, (row) => row.id, owned.phoneId],
      [groups.GET, (row) => row.id, owned.groupId],
      [messages.GET, (row) => row.id, owned.messageId],
      [webhooks.GET, (row) => row.id, owned.webhookId],
      [apiKeys.GET, (row) => row.id, owned.keyId],
      [ledger.GET, (row) => row.group_id, owned.groupId],
      [balance.GET, (row) => row.group_id, owned.groupId],
      [optOuts.GET, (row) => row.phone, OPTED_OUT],
      [inboundRules.GET, (row) => row.id, owned.ruleId],
      [alertList.GET, (row) => row.id, owned.alertId],
      [smppCredentials.GET, (row) => row.system_id, owned.smppSystemId],
      [conversations.GET, (row) => row.number, '+14155550123'],
    ];
    for (const [handler, idOf, foreignId] of lists) {
      const res = await call(handler, { apiKey: b.apiKey, path: '/x?limit=100' });
      expect(res.status).toBe(200);
      expect((res.body.data as Row[]).map(idOf)).not.toContain(foreignId);
      expect(res.text).not.toContain(a.phone);
    }
  });

  it('changes only its own Email to SMS settings', async () => {
    const changed = await call(emailSmsSettings.PATCH, {
      method: 'PATCH',
      body: { subject_prefix: true },
      apiKey: b.apiKey,
    });
    expect(changed.body.subject_prefix).toBe(true);
    expect((await call(emailSmsSettings.GET, { apiKey: a.apiKey })).body.subject_prefix).toBe(false);
  });

  it('reads an empty conversation with the first account’s recipient', async () => {
    const res = await call(conversation.GET, { params: { number: '+14155550123' }, apiKey: b.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [], next_cursor: null });
    const own = await call(conversation.GET, { params: { number: '+14155550123' }, apiKey: a.apiKey });
    expect(own.body.data.map((m: { id: string }) => m.id)).toContain(owned.messageId);
  });

  it('left everything of the first account as it was', async () => {
    expect((await call(phone.GET, { params: { id: owned.phoneId }, apiKey: a.apiKey })).body).toMatchObject({
      label: null,
      status: 'online',
    });
    expect((await call(group.GET, { params: { id: String(owned.groupId) }, apiKey: a.apiKey })).body.name).toBe(
      'Sales',
    );
    expect((await call(webhook.GET, { params: { id: owned.webhookId }, apiKey: a.apiKey })).body.enabled).toBe(true);
    const keys = (await call(apiKeys.GET, { apiKey: a.apiKey })).body.data as Array<{
      id: string;
      revoked_at?: string;
    }>;
    expect(keys.find((k) => k.id === owned.keyId)?.revoked_at ?? null).toBeNull();
    expect((await call(message.GET, { params: { id: owned.messageId }, apiKey: a.apiKey })).body.status).toBe('queued');
    const aOptOuts = (await call(optOuts.GET, { apiKey: a.apiKey })).body.data as Array<{ phone: string }>;
    expect(aOptOuts.map((row) => row.phone)).toEqual([OPTED_OUT]);
    // A's opt-out binds A only: B may text the number.
    expect(
      (await call(messages.POST, { body: { from: b.phone, to: OPTED_OUT, content: 'x' }, apiKey: b.apiKey })).status,
    ).toBe(201);
    expect((await call(inboundRule.GET, { params: { id: owned.ruleId }, apiKey: a.apiKey })).body).toMatchObject({
      enabled: true,
      position: 1,
    });
    const devices = (await call(phoneDevices.GET, { params: { id: owned.phoneId }, apiKey: a.apiKey })).body.data;
    expect(devices).toEqual([expect.objectContaining({ id: a.deviceId, status: 'activated', current: true })]);
    const logins = (await call(smppCredentials.GET, { apiKey: a.apiKey })).body.data as Array<{ system_id: string }>;
    expect(logins.map((row) => row.system_id)).toEqual([owned.smppSystemId]);
  });
});

describe('a second account on the Twilio-compatible API with the first account’s SIDs', () => {
  let bBasic: string;
  beforeAll(async () => {
    await ok(twilioToken.POST, { method: 'POST', apiKey: a.apiKey });
    const creds = await ok(twilioToken.POST, { method: 'POST', apiKey: b.apiKey });
    bBasic = `Basic ${Buffer.from(`${creds.account_sid}:${creds.auth_token}`).toString('base64')}`;
  });

  const form = (fields: Record<string, string>) => ({
    rawBody: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  const aSid = () => accountSidOf(a.accountId);
  const bSid = () => accountSidOf(b.accountId);
  const aMessage = () => `${messageSidOf(owned.messageId)}.json`;

  const twilioProbes: Array<{
    name: string;
    handler: RouteHandler;
    options: () => CallOptions;
    expect: [number, number];
  }> = [
    {
      name: 'GET A’s account',
      handler: twilioAccount.GET,
      options: () => ({ params: { accountSid: `${aSid()}.json` } }),
      expect: [404, 20404],
    },
    {
      name: 'GET A’s numbers',
      handler: twilioNumbers.GET,
      options: () => ({ params: { accountSid: aSid() } }),
      expect: [404, 20404],
    },
    {
      name: 'GET A’s messages',
      handler: twilioMessages.GET,
      options: () => ({ params: { accountSid: aSid() } }),
      expect: [404, 20404],
    },
    {
      name: 'POST a message under A’s SID',
      handler: twilioMessages.POST,
      options: () => ({
        params: { accountSid: aSid() },
        method: 'POST',
        ...form({ To: '+14155550123', From: a.phone, Body: 'x' }),
      }),
      expect: [404, 20404],
    },
    {
      name: 'POST a message from A’s phone',
      handler: twilioMessages.POST,
      options: () => ({
        params: { accountSid: bSid() },
        method: 'POST',
        ...form({ To: '+14155550123', From: a.phone, Body: 'x' }),
      }),
      expect: [400, 21606],
    },
    {
      name: 'POST a message through A’s group',
      handler: twilioMessages.POST,
      options: () => ({
        params: { accountSid: bSid() },
        method: 'POST',
        ...form({ To: '+14155550123', MessagingServiceSid: messagingServiceSidOf(owned.groupId), Body: 'x' }),
      }),
      expect: [404, 21701],
    },
    {
      name: 'GET A’s message',
      handler: twilioMessage.GET,
      options: () => ({ params: { accountSid: bSid(), messageSid: aMessage() } }),
      expect: [404, 20404],
    },
    {
      name: 'POST cancel of A’s message',
      handler: twilioMessage.POST,
      options: () => ({
        params: { accountSid: bSid(), messageSid: aMessage() },
        method: 'POST',
        ...form({ Status: 'canceled' }),
      }),
      expect: [404, 20404],
    },
    {
      name: 'DELETE A’s message',
      handler: twilioMessage.DELETE,
      options: () => ({ params: { accountSid: bSid(), messageSid: aMessage() }, method: 'DELETE' }),
      expect: [404, 20404],
    },
  ];

  for (const probe of twilioProbes) {
    it(`${probe.name} answers ${probe.expect[0]} with Twilio code ${probe.expect[1]}`, async () => {
      const options = probe.options();
      const res = await call(probe.handler, { ...options, headers: { ...options.headers, authorization: bBasic } });
      expect({ status: res.status, code: res.body.code }).toEqual({ status: probe.expect[0], code: probe.expect[1] });
    });
  }

  it('B’s list holds none of A’s messages, and A’s message is still queued', async () => {
    const res = await call(twilioMessages.GET, { params: { accountSid: bSid() }, headers: { authorization: bBasic } });
    expect(res.status).toBe(200);
    expect(res.body.messages.map((m: { sid: string }) => m.sid)).not.toContain(messageSidOf(owned.messageId));
    expect((await call(message.GET, { params: { id: owned.messageId }, apiKey: a.apiKey })).body.status).toBe('queued');
  });
});

describe('a second account on SMSGate’s integrator API with the first account’s ids, by key and by JWT', () => {
  const basicOf = (key: string) => `Basic ${Buffer.from(`login:${key}`).toString('base64')}`;
  let aToken: { id: string; access_token: string };
  let bToken: string;
  let inboundId: string;
  beforeAll(async () => {
    const headers = { authorization: basicOf(a.apiKey) };
    await ok(sgMessages.POST, { body: { id: 'a-sg', message: 'x', phoneNumbers: ['+14155550125'] }, headers });
    const inbound = await ok(deviceReceived.POST, {
      body: { from: '+14155550126', content: 'for A only', device_message_id: 'a-in-1' },
      apiKey: a.deviceKey,
    });
    inboundId = inbound.id;
    aToken = await ok(sgToken.POST, { body: { scopes: ['devices:list'] }, headers });
    const all = ['messages:list', 'messages:read', 'messages:cancel', 'inbox:list', 'logs:read', 'tokens:manage'];
    bToken = (await ok(sgToken.POST, { body: { scopes: all }, headers: { authorization: basicOf(b.apiKey) } }))
      .access_token;
  });

  for (const [label, auth] of [
    ['key', () => basicOf(b.apiKey)],
    ['JWT', () => `Bearer ${bToken}`],
  ] as const) {
    it(`by ${label}: A’s message, its cancel and A’s token are 404; lists hold nothing of A’s`, async () => {
      const headers = { authorization: auth() };
      for (const [handler, options] of [
        [sgMessage.GET, { params: { id: 'a-sg' } }],
        [sgMessage.DELETE, { params: { id: 'a-sg' }, method: 'DELETE' }],
        [sgMessageOld.DELETE, { params: { id: 'a-sg' }, method: 'DELETE' }],
        [sgRevoke.DELETE, { params: { jti: aToken.id }, method: 'DELETE' }],
      ] as const) {
        const res = await call(handler, { ...options, headers });
        expect(res.status, res.text).toBe(404);
      }
      for (const handler of [sgMessages.GET, sgInbox.GET, sgLogs.GET]) {
        const res = await call(handler, { headers });
        expect(res.status).toBe(200);
        expect(res.text).not.toContain('a-sg');
        expect(res.text).not.toContain(a.phone);
        expect(res.text).not.toContain('+14155550126');
        expect(res.text).not.toContain(inboundId);
      }
    });
  }

  it('left A’s message pending and A’s token valid', async () => {
    const headers = { authorization: basicOf(a.apiKey) };
    expect((await call(sgMessage.GET, { params: { id: 'a-sg' }, headers })).body.state).toBe('Pending');
    const { GET: devices } = await import('@/app/api/3rdparty/v1/devices/route');
    expect((await call(devices, { headers: { authorization: `Bearer ${aToken.access_token}` } })).status).toBe(200);
  });
});
