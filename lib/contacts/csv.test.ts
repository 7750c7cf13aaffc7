import { describe, expect, it } from 'vitest';
import { guessNumberColumn } from '@/lib/csv-columns';
import { contactColumns, parseCsv, tagsOfCell } from './csv';
import { csvLine, unguardedCell } from './export';

describe('the contact CSV', () => {
  it('finds the number column as bulk compose does, and the others by name', () => {
    const header = ['Full name', 'Mobile', 'Labels', 'Comments'];
    expect(contactColumns(header, guessNumberColumn(header))).toEqual({ number: 1, name: 0, tags: 2, notes: 3 });
    expect(contactColumns(['x', 'y'], guessNumberColumn(['x', 'y']))).toEqual({
      number: 0,
      name: -1,
      tags: -1,
      notes: -1,
    });
  });

  it('numbers records from the header as 1, keeping the place of blank lines', () => {
    const { records } = parseCsv('number\n+14155550100\n\n"+1415\n5550101"\n');
    expect(records.map((record) => record.row)).toEqual([2, 4]);
  });

  it('splits tags on ; and |, lowers them, and names the first bad one', () => {
    expect(tagsOfCell(' VIP ; staff|vip ')).toEqual(['vip', 'staff']);
    expect(tagsOfCell('ok;not ok')).toBe('tag "not ok" is not 1 to 40 of a-z, 0-9, _ and -');
    expect(tagsOfCell(Array.from({ length: 21 }, (_, i) => `t${i}`).join(';'))).toBe('more than 20 tags');
  });

  it('quotes cells that need it and guards formulas, which the import takes off', () => {
    const line = csvLine({ name: '=SUM(A1)', number: '+14155550100', tags: ['a', 'b'], notes: 'say "hi", then go' });
    expect(line).toBe(`'=SUM(A1),+14155550100,a;b,"say ""hi"", then go"\r\n`);
    expect(unguardedCell("'=SUM(A1)")).toBe('=SUM(A1)');
    expect(unguardedCell("'quoted")).toBe("'quoted");
  });
});
