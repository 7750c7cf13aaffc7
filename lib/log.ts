import pino from 'pino';

/** Structured JSON logs on stdout. `LOG_LEVEL` sets the level (tests default to silent). */
export const log = pino({
  level: process.env.LOG_LEVEL ?? (process.env.VITEST ? 'silent' : 'info'),
  base: { service: 'simgate' },
  timestamp: pino.stdTimeFunctions.isoTime,
});
