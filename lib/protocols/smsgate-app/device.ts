import type { Executor } from '@/db';
import type { DevicePrincipal } from '@/lib/auth/principal';
import { config } from '@/lib/config';
import { decryptSecret } from '@/lib/crypto/secret-box';
import { findDevice, type SimCard, updateDeviceReport } from '@/lib/devices/device';
import { DEVICE_SIGNING_KEY_PURPOSE, redeemPairingCode } from '@/lib/devices/pairing';
import { DomainError } from '@/lib/errors';
import { iso } from '@/lib/wire';
import type { z } from '@/lib/zod';
import { APP_EVENTS, type appSimCard, type patchDeviceBody, type registerDeviceBody } from './schemas';

type AppSimCard = z.infer<typeof appSimCard>;

function asSimCards(cards: AppSimCard[] | null | undefined): SimCard[] {
  return (cards ?? []).map((card, index) => ({
    slot: card.simNumber ?? (card.slotIndex !== undefined ? card.slotIndex + 1 : index + 1),
    phone_number: card.phoneNumber ?? null,
    carrier: card.carrierName ?? null,
  }));
}

const PAIR_BY_CODE =
  'In the app choose "Sign in by code" and type a pairing code from the phone’s page in the Simgate dashboard.';

/**
 * The pairing code of a registration: `Authorization: Code <code>` (the app's "Sign in by code")
 * or `Bearer <code>` (its "private token" field). Passwords (`Basic`) are retired here, and an
 * anonymous sign-up (what the app does after a 401) cannot pair: both answer 401 saying how to pair.
 */
export function pairingCodeOf(authorization: string | null): string {
  const [scheme = '', value = ''] = (authorization ?? '').trim().split(/\s+/, 2);
  if (/^(code|bearer)$/i.test(scheme) && value) return value;
  if (/^basic$/i.test(scheme)) {
    throw new DomainError('UNAUTHENTICATED', `Simgate has no passwords: they are retired. ${PAIR_BY_CODE}`);
  }
  throw new DomainError('UNAUTHENTICATED', `This phone is not paired with Simgate. ${PAIR_BY_CODE}`);
}

/** POST /device: redeems the pairing code; the answer is the app's `{ id, token, login }`. */
export async function registerApp(
  executor: Executor,
  authorization: string | null,
  body: z.infer<typeof registerDeviceBody>,
  context: { clientIp: string },
) {
  const code = pairingCodeOf(authorization);
  const paired = await redeemPairingCode(
    executor,
    code,
    { name: body.name ?? null, pushToken: body.pushToken ?? null, simCards: asSimCards(body.simCards) },
    context,
  );
  return { id: paired.deviceId, token: paired.token, login: paired.phone };
}

/** PATCH /device: a new push token or SIM list; another device's id answers 403, as the reference does. */
export async function updateApp(
  executor: Executor,
  device: DevicePrincipal,
  body: z.infer<typeof patchDeviceBody>,
): Promise<void> {
  if (body.id !== device.deviceId) {
    throw new DomainError('FORBIDDEN', 'This token belongs to another device.');
  }
  await updateDeviceReport(executor, device.deviceId, {
    pushToken: body.pushToken ?? null,
    ...(body.simCards ? { simCards: asSimCards(body.simCards) } : {}),
  });
}

async function deviceRow(executor: Executor, deviceId: string) {
  const row = await findDevice(executor, deviceId);
  if (!row) throw new DomainError('UNAUTHENTICATED', 'This device is not known.');
  return row;
}

/** GET /device: the address the server sees (the app shows it) and the device. */
export async function describeApp(executor: Executor, device: DevicePrincipal, context: { clientIp: string }) {
  const row = await deviceRow(executor, device.deviceId);
  return {
    externalIp: context.clientIp,
    device: {
      id: row.id,
      name: row.name ?? row.phoneNumber,
      createdAt: iso(row.createdAt),
      lastSeen: iso(row.lastUsedAt),
    },
  };
}

/**
 * The ping interval the app is told: often enough that a running app never passes
 * HEARTBEAT_TIMEOUT_S without a ping (the app applies it after a restart).
 */
export function pingIntervalSeconds(): number {
  return Math.min(3600, Math.max(30, Math.floor(config.heartbeatTimeoutSeconds / 2)));
}

/**
 * GET /settings: what makes the app work without push services: SSE only, pings that carry its
 * battery, and the key it signs its callbacks with. Nothing is ever sent as null (a null resets
 * that setting in the app).
 */
export async function appSettingsDocument(executor: Executor, device: DevicePrincipal) {
  const row = await deviceRow(executor, device.deviceId);
  if (!row.signingKeyEncrypted) {
    throw new DomainError('FORBIDDEN', 'This device was not paired with the SMSGate app; pair it by code.');
  }
  return {
    gateway: { notification_channel: 'SSE_ONLY' as const },
    ping: { interval_seconds: pingIntervalSeconds() },
    webhooks: { signing_key: decryptSecret(row.signingKeyEncrypted, DEVICE_SIGNING_KEY_PURPOSE) },
  };
}

/** GET /webhooks: Simgate's own callback for each event it reads; ids are distinct (the app keys on them). */
export function appWebhooks(callbackUrl: string) {
  return APP_EVENTS.map((event) => ({ id: `simgate-${event.replace(':', '-')}`, url: callbackUrl, event }));
}
