// Plain constants (no drizzle), so that the configuration and the dashboard can name them without the schema.

/** What retention does to an old message's content: empty it, or replace it by its SHA-256 in hex. */
export const RETENTION_MODES = ['delete', 'hash'] as const;
export type RetentionMode = (typeof RETENTION_MODES)[number];
