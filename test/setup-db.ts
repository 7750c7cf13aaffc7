import { afterAll, afterEach, beforeAll, inject } from 'vitest';
import { type Database, setDatabase } from '@/db';
import { clearKeyCache, flushLastUsed } from '@/lib/auth/key-lookup';
import { openTestDatabase, type TestDatabase } from './database';

/**
 * Gives the calling test file its own fresh database, installed as the process's database so
 * route handlers use it. Returns a getter for the handle.
 */
export function withTestDatabase(): { db: () => Database; handle: () => TestDatabase } {
  let handle: TestDatabase | undefined;
  beforeAll(async () => {
    handle = await openTestDatabase(inject('testTemplate'));
    setDatabase(handle);
    clearKeyCache();
  });
  // A test's last-use writes (lib/auth/key-lookup.ts) land before the next test begins, not on its
  // fixtures' statements (on Citus, two writes to reference tables at once may deadlock).
  afterEach(flushLastUsed);
  afterAll(async () => {
    await flushLastUsed();
    setDatabase(undefined);
    await handle?.close();
  });
  const current = () => {
    if (!handle) throw new Error('withTestDatabase: the database is opened in beforeAll');
    return handle;
  };
  return { db: () => current().db, handle: current };
}
