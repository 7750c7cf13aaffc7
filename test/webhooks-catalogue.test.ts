import { describe, expect, it } from 'vitest';
import {
  EVENT_CATALOGUE,
  EVENT_TYPES,
  messageEventData,
  phoneEventData,
  SUBSCRIBABLE_EVENT_TYPES,
  subscribableEvent,
} from '@/lib/event-catalogue/catalogue';
import { type MessageRow, presentMessage } from '@/lib/messages/present';

describe('the event catalogue', () => {
  it('names the interface’s events and ours, with webhook.test not subscribable', () => {
    expect(EVENT_TYPES).toEqual(
      expect.arrayContaining([
        'message.received',
        'message.delivered',
        'message.sent',
        'message.failed',
        'message.expired',
        'message.cancelled',
        'message.rerouted',
        'recipient.opted_out',
        'recipient.opted_in',
        'phone.online',
        'phone.offline',
        'webhook.test',
      ]),
    );
    expect(SUBSCRIBABLE_EVENT_TYPES).not.toContain('webhook.test');
    expect(subscribableEvent.safeParse('webhook.test').success).toBe(false);
    expect(subscribableEvent.safeParse('message.received').success).toBe(true);
  });

  for (const type of EVENT_TYPES) {
    it(`${type}: the sample payload matches its schema`, () => {
      const entry = EVENT_CATALOGUE[type];
      expect(entry.schema.safeParse(entry.sample).success).toBe(true);
    });
  }

  it('describes what the messaging area actually emits (presentMessage)', () => {
    const at = new Date('2025-01-15T10:30:00Z');
    const row = {
      id: crypto.randomUUID(),
      kind: 'message',
      direction: 'inbound',
      from: '+14155550199',
      to: '+14155550100',
      content: 'hi',
      status: 'received',
      segments: 1,
      encoding: 'GSM-7',
      requestId: null,
      bulkId: null,
      sim: null,
      fromGroup: null,
      priority: 'normal',
      attempts: 1,
      sendAt: at,
      expiresAt: null,
      error: null,
      encrypted: false,
      createdAt: at,
      updatedAt: at,
    } as unknown as MessageRow;
    // emitEvent adds the counterpart's contact to the payload as it stores it (lib/events/emit.ts).
    const parsed = messageEventData.safeParse({ ...presentMessage(row), contact: null });
    expect(parsed.error).toBeUndefined();
  });

  it('describes what the heartbeat area emits', () => {
    const data = {
      phone_id: crypto.randomUUID(),
      phone: '+14155550100',
      status: 'offline',
      battery: null,
      last_heartbeat_at: null,
    };
    expect(phoneEventData.safeParse(data).success).toBe(true);
  });
});
