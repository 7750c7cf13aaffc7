/**
 * The PostgreSQL error codes (SQLSTATE) the code acts on, named once. `QT001` is the project's own,
 * raised by the recipient quota's guard (migration 0033).
 */
export const SQLSTATE = {
  uniqueViolation: '23505',
  foreignKeyViolation: '23503',
  queryCanceled: '57014',
  lockNotAvailable: '55P03',
  deadlockDetected: '40P01',
  quotaRace: 'QT001',
} as const;

/** The PostgreSQL error code of a failed query (`23505` unique violation, …), if any. */
export function sqlState(error: unknown): string | undefined {
  let current: unknown = error;
  // drizzle wraps driver errors in `cause`.
  for (let depth = 0; current && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
