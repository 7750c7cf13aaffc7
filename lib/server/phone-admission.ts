/**
 * A token bucket for opening phone connections (a long-polling claim, an event stream): `ratePerS`
 * a second with bursts of as many. `admit` answers `undefined` (go on) or the seconds the phone should
 * wait, 1–10 at random, so that the phones turned away together do not come back together.
 */
export function phoneAdmission(
  ratePerS: number,
  clock: () => number = () => performance.now(),
  random: () => number = Math.random,
): () => number | undefined {
  let tokens = ratePerS;
  let last = clock();
  return () => {
    if (ratePerS <= 0) return undefined;
    const now = clock();
    tokens = Math.min(ratePerS, tokens + ((now - last) / 1000) * ratePerS);
    last = now;
    if (tokens >= 1) {
      tokens -= 1;
      return undefined;
    }
    return 1 + Math.floor(random() * 10);
  };
}
