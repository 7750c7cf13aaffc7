import { describe, expect, it } from 'vitest';
import { type AuditActor, actingAs, currentActor } from './actor';

describe('the actor of a request', () => {
  it('is worked out only when an entry asks for it, and then once', async () => {
    const actor: AuditActor = { kind: 'api_key', label: 'sg_live_ab', ip: '203.0.113.7' };
    let asked = 0;
    const who = () => {
      asked++;
      return actor;
    };
    await actingAs(who, async () => {
      await Promise.resolve();
      expect(asked).toBe(0);
      expect(currentActor()).toBe(actor);
      await Promise.resolve();
      expect(currentActor()).toBe(actor);
    });
    expect(asked).toBe(1);
    expect(await actingAs(who, async () => 'no entry')).toBe('no entry');
    expect(asked).toBe(1);
  });

  it('is anonymous outside any request', () => {
    expect(currentActor()).toEqual({ kind: 'anonymous', label: null, ip: null });
  });
});
