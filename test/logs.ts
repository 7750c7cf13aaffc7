import pino from 'pino';
import { afterEach, beforeEach } from 'vitest';
import { log } from '@/lib/log';

type StreamHolder = Record<symbol, unknown>;

/**
 * Collects every line the app's logger writes during each test of the calling file, at debug
 * level (tests are silent otherwise), as the JSON it would print.
 */
export function captureLogs(): {
  lines: () => string[];
  entries: () => Record<string, unknown>[];
  clear: () => void;
} {
  let lines: string[] = [];
  let saved: { stream: unknown; level: string } | undefined;
  beforeEach(() => {
    lines = [];
    saved = { stream: (log as unknown as StreamHolder)[pino.symbols.streamSym], level: log.level };
    (log as unknown as StreamHolder)[pino.symbols.streamSym] = { write: (line: string) => lines.push(line) };
    log.level = 'debug';
  });
  afterEach(() => {
    if (!saved) return;
    (log as unknown as StreamHolder)[pino.symbols.streamSym] = saved.stream;
    log.level = saved.level;
  });
  return {
    lines: () => lines,
    entries: () => lines.map((line) => JSON.parse(line)),
    clear: () => {
      lines = [];
    },
  };
}
