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

/** Every file and folder under `root` (itself included) that its group or others may use, with its mode. */
function openToOthers(root: string): string[] {
  const found: string[] = [];
  const visit = (entry: string) => {
    const stat = fs.lstatSync(entry);
    if (stat.mode & 0o077) found.push(`${(stat.mode & 0o777).toString(8)} ${path.relative(root, entry) || '.'}`);
    if (stat.isDirectory()) for (const name of fs.readdirSync(entry)) visit(path.join(entry, name));
  };
  visit(root);
  return found;
}

describe('the embedded database folder’s permissions', () => {
  const kept = path.join(folder, 'kept', 'pglite');

  it('keeps a new folder to its owner: no file or folder under it is open to group or others', async () => {
    const handle = await openPglite(kept);
    try {
      expect(openToOthers(path.dirname(kept))).toEqual([]);
      if (handle.driver.kind !== 'pglite') throw new Error('unreachable');
      await handle.driver.client.exec('create table notes (note text); insert into notes values ($$x$$)');
    } finally {
      await handle.close();
    }
    expect(openToOthers(kept)).toEqual([]);
    expect(handle.repairedModes).toBe(0);
  }, 120_000);

  it('repairs a folder made before with 0666 files and 0777 folders at open, and counts them', async () => {
    const loosened = ['PG_VERSION', 'postgresql.conf', 'global/pg_control', 'base', 'base/5'];
    fs.chmodSync(kept, 0o777);
    for (const name of loosened) {
      const entry = path.join(kept, name);
      fs.chmodSync(entry, fs.statSync(entry).isDirectory() ? 0o777 : 0o666);
    }
    const handle = await openPglite(kept);
    try {
      expect(handle.repairedModes).toBe(loosened.length + 1);
      expect(openToOthers(kept)).toEqual([]);
      expect((fs.statSync(path.join(kept, 'base')).mode & 0o777).toString(8)).toBe('700');
      expect((fs.statSync(path.join(kept, 'PG_VERSION')).mode & 0o777).toString(8)).toBe('600');
    } finally {
      await handle.close();
    }
  }, 120_000);
});
