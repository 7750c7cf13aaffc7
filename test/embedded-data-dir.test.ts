import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openPglite } from '@/db/client';

const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-embedded-'));
const dataDir = path.join(folder, 'pglite');

afterAll(() => fs.rmSync(folder, { recursive: true, force: true }));

describe('a new embedded database folder', () => {
  it('is created (by a child process) on first open, and what is written there is found again', async () => {
    expect(fs.existsSync(path.join(dataDir, 'PG_VERSION'))).toBe(false);
    const first = await openPglite(dataDir);
    try {
      expect(fs.existsSync(path.join(dataDir, 'PG_VERSION'))).toBe(true);
      if (first.driver.kind !== 'pglite') throw new Error('unreachable');
      await first.driver.client.exec(`create table kept (note text); insert into kept values ('first open')`);
    } finally {
      await first.close();
    }
    const again = await openPglite(dataDir);
    try {
      if (again.driver.kind !== 'pglite') throw new Error('unreachable');
      const { rows } = await again.driver.client.query<{ note: string }>('select note from kept');
      expect(rows).toEqual([{ note: 'first open' }]);
    } finally {
      await again.close();
    }
  }, 60_000);
});
