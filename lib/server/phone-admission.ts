import { tellingWaits } from '@/db';

/**
 * Phone connections being set up at once in a process, at most: admitted, and neither waiting yet (a
 * long-poll that has looked at its outbox) nor answered (an event stream that has begun). A setup is
 * a few statements, mostly gathered with other phones' (key, phone, the outbox's look): on a healthy
 * machine a few tens are under way at PHONE_CONNECTS_PER_S, and at this many the database path is
 * behind by seconds, so a phone more would wait towards its request's deadline (REQUEST_DEADLINE_MS,
 * then a 503) rather than come back a little later.
 */
export const PHONE_SETUPS_MAX = 128;

export type PhoneAdmission = {
  /**
   * `undefined`: go on, with the connection's work in `setUp`; otherwise the seconds the phone should
   * wait, 1–10 at random, so that phones turned away together do not come back together.
   */
  admit: () => number | undefined;
  /**
   * Runs an admitted connection's work, which counts as being set up until it first waits for
   * something that is not the database (a long-poll's wait, `pausingDeadline`) or ends (an event
   * stream's answer, begun).
   */
  setUp: <T>(work: () => Promise<T>) => Promise<T>;
};

/**
 * Opening phone connections (a long-polling claim, an event stream): a token bucket of `ratePerS` a
 * second with bursts of as many, and at most `maxSettingUp` of them being set up at once (`ratePerS`
 * 0: neither, every phone goes on).
 */
export function phoneAdmission(
  ratePerS: number,
  {
    maxSettingUp = PHONE_SETUPS_MAX,
    clock = () => performance.now(),
    random = Math.random,
  }: { maxSettingUp?: number; clock?: () => number; random?: () => number } = {},
): PhoneAdmission {
  let tokens = ratePerS;
  let last = clock();
  let settingUp = 0;
  const refused = () => 1 + Math.floor(random() * 10);
  return {
    admit: () => {
      if (ratePerS <= 0) return undefined;
      if (settingUp >= maxSettingUp) return refused();
      const now = clock();
      tokens = Math.min(ratePerS, tokens + ((now - last) / 1000) * ratePerS);
      last = now;
      if (tokens < 1) return refused();
      tokens -= 1;
      settingUp++;
      return undefined;
    },
    setUp: async (work) => {
      let settled = false;
      const settle = () => {
        if (settled) return;
        settled = true;
        settingUp = Math.max(0, settingUp - 1);
      };
      try {
        return await tellingWaits(settle, work);
      } finally {
        settle();
      }
    },
  };
}
