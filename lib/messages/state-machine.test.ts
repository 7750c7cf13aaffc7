import { describe, expect, it } from 'vitest';
import { needsOnlyHistory } from './state-machine';

describe('the delivery states', () => {
  it('ask nothing of a new queued message but its history row, which the send statements rely on', () => {
    // Should `queued` ever emit an event or refund, lib/messages/send.ts, accept-batch.ts and bulk.ts
    // write new messages without it: they must go through afterTransition first.
    expect(needsOnlyHistory('queued')).toBe(true);
    expect(needsOnlyHistory('sent')).toBe(false);
    expect(needsOnlyHistory('cancelled')).toBe(false);
  });
});
