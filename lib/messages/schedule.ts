import { validationError } from '@/lib/errors';
import {
  DEFAULT_TTL_SECONDS,
  MAX_SCHEDULE_AHEAD_MS,
  MAX_TTL_SECONDS,
  MIN_TTL_SECONDS,
  SEND_AT_PAST_TOLERANCE_MS,
} from './limits';

/** When a message becomes claimable and when it expires, checked against `now`. */
export function scheduleOf(
  input: { sendAt?: Date; ttlSeconds?: number },
  now = new Date(),
): { sendAt: Date; expiresAt: Date } {
  const sendAt = input.sendAt ?? now;
  if (Number.isNaN(sendAt.getTime())) throw validationError('send_at', 'not an RFC 3339 timestamp');
  if (sendAt.getTime() < now.getTime() - SEND_AT_PAST_TOLERANCE_MS) {
    throw validationError('send_at', 'must not be in the past');
  }
  if (sendAt.getTime() > now.getTime() + MAX_SCHEDULE_AHEAD_MS) {
    throw validationError('send_at', 'must be at most 30 days ahead');
  }
  const ttl = input.ttlSeconds ?? DEFAULT_TTL_SECONDS;
  if (!Number.isInteger(ttl) || ttl < MIN_TTL_SECONDS || ttl > MAX_TTL_SECONDS) {
    throw validationError('ttl_s', `must be an integer from ${MIN_TTL_SECONDS} to ${MAX_TTL_SECONDS}`);
  }
  return { sendAt, expiresAt: new Date(sendAt.getTime() + ttl * 1000) };
}
