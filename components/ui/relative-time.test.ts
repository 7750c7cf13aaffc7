import { describe, expect, it } from 'vitest';
import { relativeTime } from './relative-time';

describe('relativeTime', () => {
  const now = new Date('2026-11-24T12:00:00Z');
  it('uses the largest unit that fits', () => {
    const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto', style: 'short' });
    expect(relativeTime(new Date('2026-11-24T11:58:00Z'), now)).toBe(rtf.format(-2, 'minute'));
    expect(relativeTime(new Date('2026-11-24T11:59:30Z'), now)).toBe(rtf.format(-30, 'second'));
    expect(relativeTime(new Date('2026-11-24T09:00:00Z'), now)).toBe(rtf.format(-3, 'hour'));
    expect(relativeTime(new Date('2026-11-21T12:00:00Z'), now)).toBe(rtf.format(-3, 'day'));
  });
});
