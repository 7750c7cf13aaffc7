import { describe, expect, it } from 'vitest';
import { pausingDeadline } from '@/db';
import { phoneAdmission } from './phone-admission';

describe('phoneAdmission', () => {
  it('admits a burst of the rate, then turns phones away with spread-out waits until tokens come back', () => {
    let now = 0;
    const randoms = [0, 0.5, 0.99];
    let r = 0;
    const { admit } = phoneAdmission(100, {
      maxSettingUp: 1_000,
      clock: () => now,
      random: () => randoms[r++ % randoms.length] as number,
    });
    for (let i = 0; i < 100; i++) expect(admit()).toBeUndefined();
    expect([admit(), admit(), admit()]).toEqual([1, 6, 10]);
    now += 50; // 5 tokens back
    for (let i = 0; i < 5; i++) expect(admit()).toBeUndefined();
    expect(admit()).toBeGreaterThanOrEqual(1);
  });

  it('turns phones away while as many as it allows are being set up, whatever the rate: a connection is until it first waits or ends', async () => {
    const admission = phoneAdmission(1_000, { maxSettingUp: 2, random: () => 0 });
    const forever = new Promise<void>(() => {});
    let end = () => {};
    const ended = new Promise<void>((resolve) => {
      end = resolve;
    });
    // Two being set up: one that will end, one about to wait.
    expect(admission.admit()).toBeUndefined();
    const stream = admission.setUp(() => ended);
    expect(admission.admit()).toBeUndefined();
    let begin = () => {};
    const looked = new Promise<void>((resolve) => {
      begin = resolve;
    });
    void admission.setUp(async () => {
      await looked;
      await pausingDeadline(forever);
    });
    expect(admission.admit()).toBe(1);
    // The long-poll has looked and begins its wait: set up, whatever it waits for.
    begin();
    await new Promise((resolve) => setImmediate(resolve));
    expect(admission.admit()).toBeUndefined();
    void admission.setUp(() => forever);
    expect(admission.admit()).toBe(1);
    // The stream's answer: set up too.
    end();
    await stream;
    expect(admission.admit()).toBeUndefined();
    expect(admission.admit()).toBe(1);
  });

  it('admits everything at rate 0, however many are being set up', () => {
    const { admit } = phoneAdmission(0, { maxSettingUp: 1 });
    for (let i = 0; i < 10_000; i++) expect(admit()).toBeUndefined();
  });
});
