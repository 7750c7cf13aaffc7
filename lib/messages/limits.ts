/** Bounds of the messaging API, shared by the schemas, the domain functions and the docs. */
export const MAX_CONTENT_LENGTH = 1600;
export const MAX_REQUEST_ID_LENGTH = 100;
export const MAX_BULK_RECIPIENTS = 1000;
/** The texts of one send, rendered from its template, in all (characters): past it, 413 naming `recipients`. */
export const MAX_RENDERED_TOTAL = 1_000_000;
export const MIN_TTL_SECONDS = 60;
export const MAX_TTL_SECONDS = 7 * 24 * 3600;
export const DEFAULT_TTL_SECONDS = 24 * 3600;
/** A `send_at` this far in the past is still "now" (clock skew between integrator and server). */
export const SEND_AT_PAST_TOLERANCE_MS = 60_000;
export const MAX_SCHEDULE_AHEAD_MS = 30 * 24 * 3600 * 1000;
/** An encrypted text or number (the SMSGate app's format) holds at most this many characters. */
export const MAX_ENCRYPTED_LENGTH = 8192;
