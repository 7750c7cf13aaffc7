import { config } from '@/lib/config';
import { startPeriodic } from '@/lib/runtime/periodic';
import { expireMessages } from './expire';

/** The expiry sweep (MESSAGE_EXPIRY_SWEEP_S): messages past their TTL end `expired`, refunded. */
export async function startMessagingWork(): Promise<() => Promise<void>> {
  return startPeriodic({
    name: 'message expiry sweep',
    intervalMs: config.messageExpirySweepSeconds * 1000,
    run: (db) => expireMessages(db),
  });
}
