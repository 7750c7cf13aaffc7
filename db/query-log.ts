import { AsyncLocalStorage } from 'node:async_hooks';
import fs from 'node:fs';
import path from 'node:path';
import { threadId } from 'node:worker_threads';
import type { Logger } from 'drizzle-orm';

/**
 * The query log: a test instrument, not configuration (db/ reads no other environment). With
 * QUERY_LOG_DIR set, every distinct statement the product sends (its text, whitespace folded) is
 * written once per process and origin to `<dir>/<pid>-<thread>.ndjson` as `{ sql, origin, driver }`,
 * and scripts/check-query-log.ts then checks that each one touching an account's table filters by
 * `account_id` (lib/ops/query-tenancy.ts). The origin is the work that sent it: `request:<method>
 * <route>` (lib/http/route.ts) or `task:<name>` (a background loop or sweep), set by
 * `withQueryOrigin`; statements sent outside any (a test's own setup) are not written.
 *
 * Unset, nothing is set up: drizzle gets no logger and `withQueryOrigin` only calls its work.
 */
const DIR = process.env.QUERY_LOG_DIR || undefined;

type QueryLog = { dir: string; origins: AsyncLocalStorage<string>; seen: Set<string>; file: string };

// On globalThis: Next evaluates db/ in several bundles, and an origin set in one must be seen in all.
const KEY = Symbol.for('simgate.db.queryLog');
const state: QueryLog | undefined = DIR ? openLog(DIR) : undefined;

function openLog(dir: string): QueryLog {
  const holder = globalThis as { [KEY]?: QueryLog };
  if (holder[KEY]?.dir !== dir) {
    fs.mkdirSync(dir, { recursive: true });
    holder[KEY] = {
      dir,
      origins: new AsyncLocalStorage<string>(),
      seen: new Set(),
      file: path.join(dir, `${process.pid}-${threadId}.ndjson`),
    };
  }
  return holder[KEY];
}

/**
 * Runs `work` as `origin` (`request:sendMessage`, `task:message expiry sweep`): what its statements are
 * logged as. drizzle's queries run when awaited, so `work` awaits its own: one that hands back an
 * unawaited query has it run, and logged, outside the origin.
 */
export function withQueryOrigin<T>(origin: string, work: () => T): T {
  return state ? state.origins.run(origin, work) : work();
}

/** Whether statements are being logged (to skip working out an origin's name when they are not). */
export const queryLogging = state !== undefined;

/** The statement as logged: whitespace runs folded to one space. */
export function foldWhitespace(statement: string): string {
  return statement.replace(/\s+/g, ' ').trim();
}

/**
 * The drizzle logger that writes `driver`'s statements, or undefined when nothing is logged. drizzle
 * hands it every statement it sends, in a transaction or not: queries, raw `sql`, the pipelined
 * connections' batches (each its own drizzle handle, given this logger too).
 */
export function queryLogger(driver: 'pglite' | 'postgres'): Logger | undefined {
  if (!state) return undefined;
  const log = state;
  return {
    logQuery(query: string) {
      const origin = log.origins.getStore();
      if (!origin) return;
      const sql = foldWhitespace(query);
      const key = `${driver}\n${origin}\n${sql}`;
      if (log.seen.has(key)) return;
      log.seen.add(key);
      fs.appendFileSync(log.file, `${JSON.stringify({ sql, origin, driver })}\n`);
    },
  };
}
