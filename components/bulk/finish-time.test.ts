import { describe, expect, it } from 'vitest';
import { finishText } from './finish-time';

describe('finishText', () => {
  const now = new Date(2026, 2, 2, 13, 40);

  it('reads minutes and the clock time when it finishes today', () => {
    expect(finishText(new Date(2026, 2, 2, 14, 20).toISOString(), now, 'en-GB')).toBe('about 40 min, done by 14:20');
  });

  it('reads hours past an hour', () => {
    expect(finishText(new Date(2026, 2, 2, 16, 5).toISOString(), now, 'en-GB')).toBe('about 2 h 25 min, done by 16:05');
  });

  it('names the day when it finishes on another', () => {
    expect(finishText(new Date(2026, 2, 3, 9, 0).toISOString(), now, 'en-GB')).toBe(
      'about 19 h 20 min, done by Tue 3 Mar 09:00',
    );
  });

  it('says less than a minute for what is about to finish', () => {
    expect(finishText(new Date(2026, 2, 2, 13, 40, 20).toISOString(), now, 'en-GB')).toBe(
      'less than a minute, done by 13:40',
    );
  });
});
