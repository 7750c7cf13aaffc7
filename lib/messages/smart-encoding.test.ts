import { describe, expect, it } from 'vitest';
import { countSegments } from './segments';
import { hasLookalikes, SMART_ENCODING_TABLE, smartEncode } from './smart-encoding';

describe('the smart-encoding table', () => {
  it('replaces only characters outside the GSM alphabet, each by GSM-7 text', () => {
    for (const [char, replacement] of Object.entries(SMART_ENCODING_TABLE)) {
      expect(countSegments(char).encoding, `U+${char.codePointAt(0)?.toString(16)} is GSM-7 already`).toBe('UCS-2');
      if (replacement !== '') expect(countSegments(replacement).encoding, `${replacement}`).toBe('GSM-7');
    }
  });

  it('keeps "Don’t miss it — 20% off…" in one GSM-7 segment', () => {
    const text = 'Don’t miss it — 20% off…';
    expect(countSegments(text).encoding).toBe('UCS-2');
    expect(smartEncode(text)).toBe("Don't miss it - 20% off...");
    expect(countSegments(smartEncode(text))).toMatchObject({ encoding: 'GSM-7', segments: 1 });
  });

  it('replaces curly quotes, dashes, odd spaces and removes invisible characters', () => {
    expect(smartEncode('“Hi”\u00A0‘you’\u2009–\u200B ok\uFEFF')).toBe('"Hi" \'you\' - ok');
    expect(smartEncode('Œuvre ﬁne, ©2026™')).toBe('OEuvre fine, (c)2026TM');
  });

  it('leaves what it cannot replace (emoji, Cyrillic) and the GSM alphabet as they are', () => {
    expect(smartEncode('Привет 😀 — ok')).toBe('Привет 😀 - ok');
    expect(countSegments(smartEncode('Привет — ok')).encoding).toBe('UCS-2');
    const gsm = 'Ça coute £5 à Ø ΔΩ é ü ñ ß €[]';
    expect(smartEncode(gsm)).toBe(gsm);
    expect(hasLookalikes(gsm)).toBe(false);
    expect(hasLookalikes('it’s')).toBe(true);
  });

  it('turns 100 characters with one curly apostrophe from 2 UCS-2 segments into 1 GSM-7 segment', () => {
    const text = `It’s ${'a'.repeat(95)}`;
    expect(countSegments(text)).toMatchObject({ encoding: 'UCS-2', segments: 2 });
    expect(countSegments(smartEncode(text))).toMatchObject({ encoding: 'GSM-7', segments: 1 });
  });
});
