import { describe, expect, it } from 'vitest';
import { appSignature, checkAppSignature, SIGNATURE_TOLERANCE_SECONDS } from './signature';

const key = 'signing-key';
const body = new TextEncoder().encode('{"event":"sms:received"}');
const now = 1_800_000_000_500; // half a second into a second

function checkAt(timestamp: number) {
  const stamp = String(timestamp);
  return checkAppSignature(key, body, { signature: appSignature(key, body, stamp), timestamp: stamp }, now);
}

describe('checkAppSignature', () => {
  it('takes a timestamp up to the tolerance away from the clock, either way, and refuses one beyond it', () => {
    const seconds = now / 1000;
    expect(checkAt(Math.ceil(seconds - SIGNATURE_TOLERANCE_SECONDS)).ok).toBe(true);
    expect(checkAt(Math.floor(seconds + SIGNATURE_TOLERANCE_SECONDS)).ok).toBe(true);
    expect(checkAt(Math.floor(seconds - SIGNATURE_TOLERANCE_SECONDS))).toMatchObject({ ok: false });
    expect(checkAt(Math.ceil(seconds + SIGNATURE_TOLERANCE_SECONDS))).toMatchObject({ ok: false });
  });

  it('refuses a wrong signature, a malformed timestamp and missing headers', () => {
    const stamp = String(Math.floor(now / 1000));
    expect(
      checkAppSignature(key, body, { signature: appSignature('other', body, stamp), timestamp: stamp }, now).ok,
    ).toBe(false);
    expect(checkAppSignature(key, body, { signature: 'zz', timestamp: stamp }, now).ok).toBe(false);
    expect(checkAppSignature(key, body, { signature: appSignature(key, body, '1.5'), timestamp: '1.5' }, now).ok).toBe(
      false,
    );
    expect(checkAppSignature(key, body, { signature: null, timestamp: stamp }, now).ok).toBe(false);
    expect(checkAt(Math.floor(now / 1000)).ok).toBe(true);
  });
});
