import type { Executor } from '@/db';
import { devices } from '@/db/schema';
import { CODE_LIFETIME_SECONDS, issueCode } from '@/lib/auth/codes';
import { config } from '@/lib/config';
import { countryOf } from '@/lib/phone-number';
import { ipBucket } from '@/lib/rate-limit/client-ip';
import { consumeRateLimits } from '@/lib/rate-limit/consume';
import { sendSmsOrRefuse } from '@/lib/sms/service-sms';
import { withTransaction } from '@/lib/transactions';
import { iso } from '@/lib/wire';

const REGISTER_IP_WINDOW_SECONDS = 3600;

export type RegisterDeviceInput = { phoneNumber: string; countryCode?: string; label?: string };

/**
 * Step 1 of activation: records a pending device for the number and texts it a 6-digit code.
 * Counted against the per-number and per-client-IP limits; over either answers 429.
 */
export async function registerDevice(executor: Executor, input: RegisterDeviceInput, context: { clientIp: string }) {
  return withTransaction(executor, async (tx) => {
    await consumeRateLimits(tx, [
      {
        bucket: `verify:${input.phoneNumber}`,
        limit: config.verificationRateLimit,
        windowSeconds: config.verificationRateWindowSeconds,
        what: 'verification requests for this number',
      },
      {
        bucket: ipBucket('register-ip', context.clientIp),
        limit: config.registerIpRateLimit,
        windowSeconds: REGISTER_IP_WINDOW_SECONDS,
        what: 'device registrations from this address',
      },
    ]);
    const [device] = await tx
      .insert(devices)
      .values({
        phoneNumber: input.phoneNumber,
        countryCode: input.countryCode ?? countryOf(input.phoneNumber) ?? null,
        label: input.label ?? null,
      })
      .returning({ id: devices.id });
    if (!device) throw new Error('registerDevice: insert returned no row');
    const { code, expiresAt } = await issueCode(tx, { purpose: 'verify_sim', deviceId: device.id });
    await sendSmsOrRefuse(
      tx,
      {
        origin: 'verification_code',
        to: input.phoneNumber,
        text: `Your Simgate verification code is ${code}. It expires in ${CODE_LIFETIME_SECONDS / 60} minutes.`,
        code,
      },
      'verification SMS',
    );
    return {
      device_id: device.id,
      status: 'pending_verification' as const,
      verification_expires_at: iso(expiresAt) ?? '',
    };
  });
}
