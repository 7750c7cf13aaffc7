import { describe, expect, it } from 'vitest';
import { countryOf, e164, isKnownCountryCode, toE164 } from './phone-number';

describe('phone numbers', () => {
  it('accepts valid E.164 numbers and normalises spacing', () => {
    expect(toE164('+14155550100')).toBe('+14155550100');
    expect(toE164(' +44 7911 123456 ')).toBe('+447911123456');
  });

  it('refuses numbers without a leading +, invalid numbers and junk', () => {
    for (const bad of ['14155550100', '+1415', '+999999999999', 'hello', '+1 415 555 0100 ext 9', '', '+'.repeat(40)]) {
      expect(toE164(bad)).toBeUndefined();
    }
  });

  it('answers the same the second time, from what it remembers of the number', () => {
    for (let round = 0; round < 2; round++) {
      expect(toE164('+1 415 555 0100')).toBe('+14155550100');
      expect(toE164('+1415')).toBeUndefined();
      expect(countryOf('+4915112345678')).toBe('DE');
      expect(countryOf('+1415')).toBeUndefined();
    }
  });

  it('knows the country of a number and the ISO codes', () => {
    expect(countryOf('+4915112345678')).toBe('DE');
    expect(isKnownCountryCode('FR')).toBe(true);
    expect(isKnownCountryCode('XX')).toBe(false);
    expect(isKnownCountryCode('fr')).toBe(false);
  });

  it('the zod schema names the problem', () => {
    const result = e164.safeParse('+1234');
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toMatch(/E\.164/);
    expect(e164.parse('+33 6 12 34 56 78')).toBe('+33612345678');
  });

  // patches/libphonenumber-js+*.patch, applied by `npm install` (postinstall): the library built its
  // metadata's RegExps anew on every check, four of the five per number, 40 % of a parse and check.
  it('libphonenumber compiles each pattern of its metadata once (the patch is applied)', () => {
    toE164('+14155550177');
    const Original = RegExp;
    let constructed = 0;
    globalThis.RegExp = new Proxy(Original, {
      construct(target, args, newTarget) {
        constructed++;
        return Reflect.construct(target, args, newTarget);
      },
    });
    try {
      for (const number of ['+14155550178', '+14155550179', '+14155550180']) expect(toE164(number)).toBe(number);
    } finally {
      globalThis.RegExp = Original;
    }
    // One a number is built outside the patched helper; unpatched it is five.
    expect(constructed).toBeLessThanOrEqual(3);
  });
});
