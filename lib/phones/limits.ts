/**
 * A phone's editable limits: plain constants (no zod, no database), so the API's schemas and the
 * dashboard's form read the same numbers.
 */
export const MAX_LABEL_LENGTH = 100;
export const MAX_MESSAGES_PER_MINUTE = 60;
export const MAX_DAILY_CAP = 1_000_000;
