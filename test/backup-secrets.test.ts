import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import * as schema from '@/db/schema';
import { SEALED_COLUMNS } from '@/lib/backup/secrets';

describe('the sealed columns a restore checks', () => {
  it('are every encrypted column of the schema', () => {
    const encrypted = (Object.values(schema) as unknown[])
      .filter((value): value is PgTable => value instanceof PgTable)
      .flatMap((table) => {
        const config = getTableConfig(table);
        return config.columns
          .filter((column) => column.name.endsWith('_encrypted'))
          .map((c) => `${config.name}.${c.name}`);
      })
      .sort();
    const checked = SEALED_COLUMNS.map(({ table, column }) => `${getTableConfig(table).name}.${column.name}`).sort();
    expect(checked).toEqual(encrypted);
  });
});
