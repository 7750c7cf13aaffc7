import { describe, expect, it } from 'vitest';
import { GET as listAlerts } from '@/app/api/v1/alerts/route';
import { GET as auditLog } from '@/app/api/v1/audit-log/route';
import { GET, PATCH } from '@/app/api/v1/settings/alerts/route';
import { alerts } from '@/db/schema';
import { describeAuthCases } from '../auth-cases';
import { createTestAccount, sharedTestAccount } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();
const { account, fixture } = sharedTestAccount(db);

const DEFAULTS = {
  phone_offline_minutes: 15,
  battery_below_percent: 15,
  queued_older_than_minutes: 10,
  phone_paused_minutes: 1,
  group_balance_below: null,
  webhook_failures_in_a_row: 10,
};

function patch(apiKey: string, body: unknown) {
  return call(PATCH, { method: 'PATCH', body, apiKey });
}

describeAuthCases('GET /api/v1/settings/alerts', { handler: GET, request: {}, accepts: 'account', fixture });
describeAuthCases('PATCH /api/v1/settings/alerts', {
  handler: PATCH,
  request: { method: 'PATCH', body: { battery_below_percent: 20 } },
  accepts: 'account',
  fixture,
});
describeAuthCases('GET /api/v1/alerts', { handler: listAlerts, request: {}, accepts: 'account', fixture });

describe('GET/PATCH /api/v1/settings/alerts', () => {
  it('a new account has the default thresholds, the group balance alert off', async () => {
    const fresh = await createTestAccount(db());
    const res = await call(GET, { apiKey: fresh.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(DEFAULTS);
  });

  it('changes only the keys given, null turns one off, and the audit log records the change', async () => {
    const owner = await createTestAccount(db());
    const res = await patch(owner.apiKey, { group_balance_below: 500, phone_offline_minutes: null });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toEqual({ ...DEFAULTS, group_balance_below: 500, phone_offline_minutes: null });
    expect((await call(GET, { apiKey: owner.apiKey })).body).toEqual(res.body);

    const log = await call(auditLog, { path: '/x?action=alert_settings.updated', apiKey: owner.apiKey });
    expect(log.body.data).toHaveLength(1);
    expect(log.body.data[0]).toMatchObject({
      action: 'alert_settings.updated',
      actor: { kind: 'api_key' },
      details: { group_balance_below: 500, phone_offline_minutes: null },
    });

    const empty = await patch(owner.apiKey, {});
    expect(empty.status).toBe(200);
    const again = await call(auditLog, { path: '/x?action=alert_settings.updated', apiKey: owner.apiKey });
    expect(again.body.data, 'an empty change records nothing').toHaveLength(1);
  });

  it.each([
    [{ battery_below_percent: 0 }, 'battery_below_percent'],
    [{ battery_below_percent: 101 }, 'battery_below_percent'],
    [{ battery_below_percent: 12.5 }, 'battery_below_percent'],
    [{ battery_below_percent: '15' }, 'battery_below_percent'],
    [{ phone_offline_minutes: -1 }, 'phone_offline_minutes'],
    [{ phone_offline_minutes: 10_081 }, 'phone_offline_minutes'],
    [{ queued_older_than_minutes: true }, 'queued_older_than_minutes'],
    [{ group_balance_below: 1e308 }, 'group_balance_below'],
    [{ webhook_failures_in_a_row: [10] }, 'webhook_failures_in_a_row'],
    [{ webhook_failures_in_a_row: { $gt: 0 } }, 'webhook_failures_in_a_row'],
    [{ shoe_size: 2 }, 'shoe_size'],
  ])('refuses %j with 400 problem+json naming %s, and changes nothing', async (body, field) => {
    const res = await patch(account.apiKey, body);
    expect(res.status, res.text).toBe(400);
    expect(res.contentType).toBe('application/problem+json');
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.errors.map((error: { path: string }) => error.path)).toContain(field);
    expect((await call(GET, { apiKey: account.apiKey })).body).toEqual(DEFAULTS);
  });

  it.each([
    ['an array', '[1]'],
    ['a string', '"off"'],
    ['null', 'null'],
    ['broken JSON', '{"battery_below_percent":'],
  ])('refuses %s as the body with 400', async (_label, raw) => {
    const res = await call(PATCH, {
      method: 'PATCH',
      rawBody: raw,
      headers: { 'content-type': 'application/json' },
      apiKey: account.apiKey,
    });
    expect(res.status, res.text).toBe(400);
    expect(res.contentType).toBe('application/problem+json');
  });

  it('one account’s change leaves another’s thresholds and alerts alone', async () => {
    const a = await createTestAccount(db());
    const b = await createTestAccount(db());
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
    expect((await patch(b.apiKey, { battery_below_percent: 50 })).status).toBe(200);
    expect((await call(GET, { apiKey: a.apiKey })).body).toEqual(DEFAULTS);

    const mine = await call(listAlerts, { path: '/x?state=open', apiKey: a.apiKey });
    expect(mine.body.data.map((row: { id: string }) => row.id)).toEqual([alert!.id]);
    const theirs = await call(listAlerts, { path: '/x?state=all&limit=100', apiKey: b.apiKey });
    expect(theirs.status).toBe(200);
    expect(theirs.body.data).toEqual([]);
    expect(theirs.text).not.toContain(a.phone);
  });
});

describe('GET /api/v1/alerts', () => {
  it('lists newest first, filters by state, and pages with a cursor', async () => {
    const owner = await createTestAccount(db());
    const base = Date.parse('2026-01-01T00:00:00.000Z');
    for (let i = 0; i < 3; i++) {
      await db()
        .insert(alerts)
        .values({
          accountId: owner.accountId,
          kind: 'group_balance_low',
          subjectType: 'group',
          subjectId: String(owner.defaultGroupId + i * 1000),
          subjectName: `Group ${i}`,
          values: { balance: i, threshold: 10 },
          raisedAt: new Date(base + i * 60_000),
          resolvedAt: i === 0 ? new Date(base + 30 * 60_000) : null,
        });
    }
    const open = await call(listAlerts, { path: '/x?state=open', apiKey: owner.apiKey });
    expect(open.body.data.map((row: { subject: { name: string } }) => row.subject.name)).toEqual([
      'Group 2',
      'Group 1',
    ]);
    expect(open.body.data[0]).toMatchObject({
      kind: 'group_balance_low',
      subject: { type: 'group', name: 'Group 2' },
      values: { balance: 2, threshold: 10 },
      raised_at: '2026-01-01T00:02:00.000Z',
      resolved_at: null,
    });
    const resolved = await call(listAlerts, { path: '/x?state=resolved', apiKey: owner.apiKey });
    expect(resolved.body.data).toHaveLength(1);
    expect(resolved.body.data[0].resolved_at).toBe('2026-01-01T00:30:00.000Z');

    const first = await call(listAlerts, { path: '/x?limit=2', apiKey: owner.apiKey });
    expect(first.body.data).toHaveLength(2);
    const second = await call(listAlerts, {
      path: `/x?limit=2&cursor=${first.body.next_cursor}`,
      apiKey: owner.apiKey,
    });
    expect(second.body.data.map((row: { subject: { name: string } }) => row.subject.name)).toEqual(['Group 0']);
    expect(second.body.next_cursor).toBeNull();
  });

  it.each(['?state=closed', '?limit=0', '?cursor=nonsense'])('refuses %s with 400', async (query) => {
    const res = await call(listAlerts, { path: `/x${query}`, apiKey: account.apiKey });
    expect(res.status, res.text).toBe(400);
    expect(res.contentType).toBe('application/problem+json');
  });
});
