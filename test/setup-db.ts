import { afterAll, beforeAll, inject } from 'vitest';
import { type Database, setDatabase } from '@/db';
import { clearKeyCache } from '@/lib/auth/key-lookup';
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
  afterAll(async () => {
    setDatabase(undefined);
    await handle?.close();
  });
  const current = () => {
    if (!handle) throw new Error('withTestDatabase: the database is opened in beforeAll');
    return handle;
  };
  return { db: () => current().db, handle: current };
}
