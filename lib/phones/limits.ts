/**
 * A phone's editable limits: plain constants (no zod, no database), so the API's schemas and the
 * dashboard's form read the same numbers.
 */
export const MAX_LABEL_LENGTH = 100;
export const MAX_MESSAGES_PER_MINUTE = 60;
export const MAX_DAILY_CAP = 1_000_000;
export const MAX_HOURLY_CAP = 100_000;
export const MAX_MONTHLY_RECIPIENT_CAP = 1_000_000;
export const MAX_JITTER_SECONDS = 300;
/** A phone is flagged as near a cap once its usage reaches this share of it. */
export const NEAR_CAP_SHARE = 0.9;
