import { describe, expect, it } from 'vitest';
import { phoneAdmission } from './phone-admission';

describe('phoneAdmission', () => {
  it('admits a burst of the rate, then turns phones away with spread-out waits until tokens come back', () => {
    let now = 0;
    const randoms = [0, 0.5, 0.99];
    let r = 0;
    const admit = phoneAdmission(
      100,
      () => now,
      () => randoms[r++ % randoms.length] as number,
    );
    for (let i = 0; i < 100; i++) expect(admit()).toBeUndefined();
    expect([admit(), admit(), admit()]).toEqual([1, 6, 10]);
    now += 50; // 5 tokens back
    for (let i = 0; i < 5; i++) expect(admit()).toBeUndefined();
    expect(admit()).toBeGreaterThanOrEqual(1);
  });

  it('admits everything at rate 0', () => {
    const admit = phoneAdmission(0);
    for (let i = 0; i < 10_000; i++) expect(admit()).toBeUndefined();
  });
});
