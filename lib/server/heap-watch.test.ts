import { describe, expect, it } from 'vitest';
import { heapWarning } from './heap-watch';

const MB = 2 ** 20;

describe('heapWarning', () => {
  it('says nothing while the live heap is well under its limit', () => {
    expect(heapWarning({ usedBytes: 150 * MB, limitBytes: 256 * MB, streams: 1000, polls: 1000 })).toBeUndefined();
  });

  it('names the limit, the open phone connections and a HEAP_MB that fits them once the heap is the limit', () => {
    const warning = heapWarning({ usedBytes: 240 * MB, limitBytes: 256 * MB, streams: 3000, polls: 2000 });
    expect(warning).toContain('94 % of its limit (256 MB)');
    expect(warning).toContain('5000 phone connections open (3000 event streams, 2000 waiting claims');
    const needed = Number(/HEAP_MB \(to (\d+)/.exec(warning ?? '')?.[1]);
    expect(needed).toBeGreaterThan(256);
    expect(needed % 64).toBe(0);
  });
});
