import { describe, expect, it } from 'vitest';
import { parseRecipients } from '@/components/messages/recipients';

describe('bulk recipients from pasted text or a CSV', () => {
  it('takes the first column, skips a header row and lists rows that are no number with their line', () => {
    const parsed = parseRecipients('phone,name\n+14155550100,Ann\nnot a number,Bob\n"+1 (415) 555-0101";Cy\n\n12345');
    expect(parsed.valid).toEqual(['+14155550100', '+14155550101']);
    expect(parsed.invalid).toEqual([
      { row: 3, value: 'not a number' },
      { row: 6, value: '12345' },
    ]);
  });

  it('sends a repeated number once and counts the repeats', () => {
    const parsed = parseRecipients('+14155550100\n+14155550100\n+1 415 555 0100');
    expect(parsed).toMatchObject({ valid: ['+14155550100'], duplicates: 2, invalid: [] });
  });

  it('flags more recipients than one bulk takes', () => {
    const lines = Array.from({ length: 1001 }, (_, i) => `+1415556${String(i).padStart(4, '0')}`);
    expect(parseRecipients(lines.join('\n')).tooMany).toBe(true);
    expect(parseRecipients(lines.slice(0, 1000).join('\n')).tooMany).toBe(false);
  });
});
