import { describe, expect, it } from 'vitest';
import { countSegments } from './segments';

describe('countSegments', () => {
  it('fits 160 GSM-7 characters in one segment and splits 161 into two of 153', () => {
    expect(countSegments('a'.repeat(160))).toEqual({ encoding: 'GSM-7', segments: 1, units: 160 });
    expect(countSegments('a'.repeat(161))).toEqual({ encoding: 'GSM-7', segments: 2, units: 161 });
    expect(countSegments('a'.repeat(306)).segments).toBe(2);
    expect(countSegments('a'.repeat(307)).segments).toBe(3);
  });

  it('counts extension-table characters as two septets', () => {
    expect(countSegments('€'.repeat(80))).toEqual({ encoding: 'GSM-7', segments: 1, units: 160 });
    expect(countSegments(`${'€'.repeat(80)}a`).segments).toBe(2);
    expect(countSegments('[]{}\\^~|\f').units).toBe(18);
  });

  it('keeps the GSM accented letters and Greek capitals in GSM-7, but not other accents', () => {
    expect(countSegments('Ça coûte £5 à Ø ΔΩ').encoding).toBe('UCS-2');
    expect(countSegments('Ça coute £5 à Ø ΔΩ é ü ñ ß')).toMatchObject({ encoding: 'GSM-7', units: 26 });
  });

  it('switches to UCS-2 for a character outside the GSM alphabet: 70 per segment, then 67', () => {
    expect(countSegments('Привет')).toEqual({ encoding: 'UCS-2', segments: 1, units: 6 });
    expect(countSegments('ж'.repeat(70)).segments).toBe(1);
    expect(countSegments('ж'.repeat(71)).segments).toBe(2);
    expect(countSegments('ж'.repeat(134)).segments).toBe(2);
    expect(countSegments('ж'.repeat(135)).segments).toBe(3);
  });

  it('counts UCS-2 in UTF-16 code units: an emoji takes two', () => {
    expect(countSegments('😀')).toEqual({ encoding: 'UCS-2', segments: 1, units: 2 });
    expect(countSegments('😀'.repeat(35)).segments).toBe(1);
    expect(countSegments(`${'😀'.repeat(35)}a`).segments).toBe(2);
  });

  it('treats newlines and carriage returns as GSM-7', () => {
    expect(countSegments('line\r\nline').encoding).toBe('GSM-7');
  });
});
