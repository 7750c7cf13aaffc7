import type { Allowance } from './query-tenancy';

/**
 * Statements that may touch account tables without `account_id` (lib/ops/query-tenancy.ts): work
 * that spans every account by design. Each says why; an entry no statement of the test run needed
 * fails the check, so none outlives its reason.
 */
export const QUERY_ALLOWLIST: readonly Allowance[] = [];
