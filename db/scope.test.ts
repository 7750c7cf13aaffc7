import { describe, expect, it } from 'vitest';
import { actingAs, currentActor } from '@/lib/audit/actor';
import { currentDeadline, outsideDeadline, withDeadline } from './deadline';
import { scoped, withScoped } from './scope';

describe('the scope of a request', () => {
  it('keeps the other keys when one is set, and unsets it outside its work', async () => {
    const a = Symbol('a');
    const b = Symbol('b');
    await withScoped(a, 1, async () => {
      await withScoped(b, 2, async () => {
        await Promise.resolve();
        expect([scoped(a), scoped(b)]).toEqual([1, 2]);
        await withScoped(a, undefined, async () => expect([scoped(a), scoped(b)]).toEqual([undefined, 2]));
      });
      expect([scoped(a), scoped(b)]).toEqual([1, undefined]);
    });
    expect(scoped(a)).toBeUndefined();
  });

  it('holds the deadline and the actor together: leaving the deadline keeps the actor', async () => {
    const actor = { kind: 'api_key' as const, label: 'sg_live_ab', ip: null };
    await withDeadline(1000, () =>
      actingAs(
        () => actor,
        async () => {
          expect(currentDeadline()?.ms).toBe(1000);
          await outsideDeadline(async () => {
            expect(currentDeadline()).toBeUndefined();
            expect(currentActor()).toBe(actor);
          });
          expect(currentDeadline()?.ms).toBe(1000);
        },
      ),
    );
  });
});
