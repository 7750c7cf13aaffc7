import { PGlite, type QueryOptions } from '@electric-sql/pglite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { preparingPglite } from './pglite-prepared';

// Two databases alike: PGlite as it comes, and one whose queries are prepared. Every answer of the
// prepared one must be what PGlite itself answers.
let plain: PGlite;
let prepared: PGlite;

const SCHEMA = `
  create table things (id serial primary key, name text not null unique, seen timestamptz, n bigint,
    tags text[], doc jsonb, ok boolean, price numeric(10, 2), at date);
  insert into things (name, seen, n, tags, doc, ok, price, at) values
    ('a', '2026-01-02T03:04:05.678Z', 9007199254740993, '{x,y}', '{"k": [1, 2]}', true, 12.50, '2026-11-25'),
    ('b', null, null, null, null, null, null, null);
`;

beforeAll(async () => {
  plain = new PGlite();
  prepared = preparingPglite(new PGlite(), { max: 3 });
  await Promise.all([plain.exec(SCHEMA), prepared.exec(SCHEMA)]);
});

afterAll(async () => {
  await Promise.all([plain?.close(), prepared?.close()]);
});

/** What drizzle asks for: arrays of text for its own date handling. */
const DRIZZLE: QueryOptions = {
  rowMode: 'array',
  parsers: { 1114: (value: string) => value, 1184: (value: string) => value, 1082: (value: string) => value },
};

async function preparedStatements(): Promise<number> {
  const { rows } = await prepared.query<{ n: number }>(
    `select count(*)::int as n from pg_prepared_statements where name like 'simgate_%'`,
  );
  return rows[0]?.n ?? 0;
}

describe('PGlite with prepared queries', () => {
  it.each([
    ['rows as objects', 'select * from things order by id', [], undefined],
    ['rows as arrays, with parsers of the caller', 'select * from things where id = $1', [1], DRIZZLE],
    [
      'parameters of every kind',
      'select $1::uuid as u, $2::timestamptz as t, $3::jsonb as j, $4::int[] as a, $5::text as s',
      [
        '0b7c1a38-4f8e-4d7c-9a43-3f1a0b2c9d10',
        new Date('2026-05-06T07:08:09.010Z'),
        { nested: { v: [1, 'two'] } },
        [1, 2, 3],
        null,
      ],
      undefined,
    ],
    ['an insert with its count', `insert into things (name) values ($1), ($2)`, ['c', 'd'], undefined],
    [
      'an update returning rows',
      `update things set ok = $1 where name in ('c', 'd') returning name, ok`,
      [false],
      DRIZZLE,
    ],
    ['a delete', `delete from things where name = $1`, ['d'], undefined],
    ['no rows', 'select name from things where false', [], undefined],
  ] as const)('answers %s as PGlite does', async (_, text, params, options) => {
    const expected = await plain.query(text, [...params], options);
    const actual = await prepared.query(text, [...params], options);
    expect(actual.rows).toEqual(expected.rows);
    expect(actual.fields).toEqual(expected.fields);
    expect(actual.affectedRows).toBe(expected.affectedRows);
  });

  it('prepares a text once and runs it again by name, closing the least used past its limit', async () => {
    await prepared.query(`select 'warm' as w`);
    const before = await preparedStatements();
    for (let i = 0; i < 3; i++) await prepared.query(`select $1::int as i, 'once' as m`, [i]);
    expect(await preparedStatements()).toBeLessThanOrEqual(3);
    const { rows } = await prepared.query(
      `select count(*)::int as n from pg_prepared_statements where statement like '%''once'' as m'`,
    );
    expect(rows).toEqual([{ n: 1 }]);
    expect(before).toBeGreaterThan(0);
    // More texts than the limit: the oldest are closed, never more than the limit stay.
    for (let i = 0; i < 6; i++) await prepared.query(`select ${i} as distinct_text`);
    expect(await preparedStatements()).toBeLessThanOrEqual(3);
  });

  it('refuses bad statements and bad values with the database’s code, and stays usable', async () => {
    await expect(prepared.query('select from where')).rejects.toMatchObject({ code: '42601' });
    await expect(prepared.query('select $1::uuid as u', ['not-a-uuid'])).rejects.toMatchObject({ code: '22P02' });
    await expect(prepared.query(`insert into things (name) values ($1)`, ['a'])).rejects.toMatchObject({
      code: '23505',
    });
    // The statement that failed at bind stays prepared and works with a good value.
    const { rows } = await prepared.query<{ u: string }>('select $1::uuid as u', [
      '0b7c1a38-4f8e-4d7c-9a43-3f1a0b2c9d10',
    ]);
    expect(rows).toEqual([{ u: '0b7c1a38-4f8e-4d7c-9a43-3f1a0b2c9d10' }]);
    expect(prepared.isInTransaction()).toBe(false);
  });

  it('prepares a statement anew when its table changed shape since', async () => {
    await prepared.exec('create table shapes (id int)');
    await prepared.query('insert into shapes values ($1)', [1]);
    expect((await prepared.query('select * from shapes')).rows).toEqual([{ id: 1 }]);
    await prepared.exec('alter table shapes add column label text');
    expect((await prepared.query('select * from shapes')).rows).toEqual([{ id: 1, label: null }]);
  });

  it('delivers notifications raised by a prepared query', async () => {
    const heard: string[] = [];
    await prepared.listen('simgate_test', (payload) => heard.push(payload));
    await prepared.query(`select pg_notify('simgate_test', $1)`, ['hello']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(heard).toEqual(['hello']);
  });

  it('leaves transactions to PGlite, and they see and undo what they do', async () => {
    await expect(
      prepared.transaction(async (tx) => {
        await tx.query(`insert into things (name) values ($1)`, ['in-tx']);
        expect((await tx.query(`select name from things where name = $1`, ['in-tx'])).rows).toHaveLength(1);
        throw new Error('undo');
      }),
    ).rejects.toThrow('undo');
    expect((await prepared.query(`select name from things where name = $1`, ['in-tx'])).rows).toEqual([]);
  });

  it('runs concurrent queries one at a time, each with its own answer', async () => {
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => prepared.query<{ i: number }>('select $1::int * 2 as i', [i])),
    );
    expect(answers.map((answer) => answer.rows[0]?.i)).toEqual(Array.from({ length: 20 }, (_, i) => i * 2));
  });
});
