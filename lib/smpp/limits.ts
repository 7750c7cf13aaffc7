/** A system_id: SMPP allows 16 characters; letters, digits, `_` and `-` here. */
export const SYSTEM_ID_PATTERN = /^[A-Za-z0-9_-]{1,16}$/;

/** SMPP logins one account may hold. */
export const SMPP_CREDENTIALS_PER_ACCOUNT = 20;

/** Wrong passwords in a row after which a login is locked, and for how long. */
export const SMPP_LOCKOUT_AFTER_FAILURES = 5;
export const SMPP_LOCKOUT_MS = 15 * 60_000;

/** A bind row not refreshed for this long belongs to an instance that died: it no longer counts. */
export const SMPP_BIND_STALE_MS = 90_000;

/** How long a receipt or inbound message waits for a receiver bind, as long as a webhook is retried. */
export const SMPP_DELIVERY_TTL_MS = 24 * 3_600_000;
