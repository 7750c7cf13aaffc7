import { describe, expect, it } from 'vitest';
import { optOutWordOf } from './words';

describe('optOutWordOf', () => {
  it.each(['STOP', 'stop', ' Stop\n', 'StopAll', 'UNSUBSCRIBE', 'cancel', 'End', 'quit'])(
    '%j is a stop word',
    (text) => {
      expect(optOutWordOf(text)).toBe('stop');
    },
  );
  it.each(['START', 'unstop', ' yes '])('%j is a start word', (text) => {
    expect(optOutWordOf(text)).toBe('start');
  });
  it.each(['STOP please', 'please stop', 'stopped', 'yes sir', '', 'STÖP'])('%j is neither', (text) => {
    expect(optOutWordOf(text)).toBeNull();
  });
});
