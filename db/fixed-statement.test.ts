import { sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { fixedStatement } from './fixed-statement';

const dialect = new PgDialect();

describe('fixedStatement', () => {
  const fragment = (value: unknown) => sql`(select ${value}::int + ${7})`;
  const build = (input: unknown, cap: unknown) =>
    sql`with i as (select * from jsonb_to_recordset(${input}::jsonb) as r(x int)) select ${fragment(cap)}, ${'kind'} from i`;

  it('gives the text and parameters the statement built afresh would', () => {
    let builds = 0;
    const fixed = fixedStatement(['input', 'cap'], (slots) => {
      builds++;
      return build(slots.input, slots.cap);
    });
    for (const [input, cap] of [
      ['[{"x":1}]', 5],
      ['[{"x":2},{"x":3}]', 9],
    ] as const) {
      expect(dialect.sqlToQuery(fixed({ input, cap }))).toEqual(dialect.sqlToQuery(build(input, cap)));
    }
    expect(builds).toBe(1);
  });

  it('refuses a statement whose text holds a `$<digits>` of its own', () => {
    const fixed = fixedStatement(['input'], (slots) => sql`select '$1' as price, ${slots.input}`);
    expect(() => fixed({ input: 1 })).toThrow(/\$<digits>/);
  });

  it('refuses a value its statement does not use, and a call without one it does', () => {
    expect(() =>
      fixedStatement(['input', 'unused'], (slots) => sql`select ${slots.input}`)({ input: 1, unused: 2 }),
    ).toThrow(/does not use its value "unused"/);
    const fixed = fixedStatement(['input'], (slots) => sql`select ${slots.input}`);
    expect(() => fixed({} as { input: unknown })).toThrow(/No value for placeholder "input"/);
  });
});
