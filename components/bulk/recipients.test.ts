import { describe, expect, it } from 'vitest';
import { guessNumberColumn } from '@/lib/csv-columns';
import { parsePasted, rowsFromCsv, variableName } from './recipients';

describe('bulk recipients from the dashboard', () => {
  it('splits pasted numbers on lines, commas and semicolons, dropping spaces and punctuation', () => {
    expect(parsePasted('+1 (415) 555-0100\n+14155550101, +14155550102;\n\n')).toEqual([
      { line: 1, to: '+14155550100', vars: {} },
      { line: 2, to: '+14155550101', vars: {} },
      { line: 3, to: '+14155550102', vars: {} },
    ]);
  });

  it('maps CSV columns to template variables, the number column excepted', () => {
    const table = [
      ['First name', 'Phone', 'City!'],
      ['Ada', '+14155550100', 'London'],
      ['', '', ''],
      ['Bob', 'not a number', 'Paris'],
    ];
    expect(guessNumberColumn(table[0]!)).toBe(1);
    expect(rowsFromCsv(table, 1)).toEqual([
      { line: 2, to: '+14155550100', vars: { first_name: 'Ada', city: 'London' } },
      { line: 4, to: 'notanumber', vars: { first_name: 'Bob', city: 'Paris' } },
    ]);
    expect(variableName('2nd')).toBeNull();
  });
});
