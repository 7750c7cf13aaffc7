import pino from 'pino';
import { readSetting } from '@/lib/config/env';

/**
 * The level from LOG_LEVEL (tests default to silent). A bad value logs at info until the start-up
 * check (lib/config) refuses it with every other problem.
 */
function level(): string {
  const fallback = process.env.VITEST ? 'silent' : 'info';
  try {
    return readSetting('LOG_LEVEL') ?? fallback;
  } catch {
    return fallback;
  }
}

/** Structured JSON logs on stdout. */
export const log = pino({
  level: level(),
  base: { service: 'simgate' },
  timestamp: pino.stdTimeFunctions.isoTime,
});
