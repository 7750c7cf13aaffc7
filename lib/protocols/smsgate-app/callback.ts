import { createHash } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { Database } from '@/db';
import { devices } from '@/db/schema';
import type { DevicePrincipal } from '@/lib/auth/principal';
import { decryptSecret } from '@/lib/crypto/secret-box';
import { DEVICE_SIGNING_KEY_PURPOSE } from '@/lib/devices/pairing';
import { DomainError, validationError } from '@/lib/errors';
import { recordHeartbeat } from '@/lib/heartbeats/record';
import { findDevicePhone } from '@/lib/messages/device-phone';
import { receiveMessage } from '@/lib/messages/receive';
import { senderAsStored } from '@/lib/phone-number';
import { applyAppState } from './messages';
import { callbackEnvelope, pingPayload, receivedPayload, statusPayload } from './schemas';
import { checkAppSignature } from './signature';

/**
 * The inbound message's idempotency key. The app's `messageId` is a 32-bit hash of the SMS (the
 * same on every retry), so two different SMS can share it; the sender and text decide between them.
 */
function inboundId(messageId: string, from: string, text: string): string {
  return `${messageId}:${createHash('sha256').update(`${from}\n${text}`).digest('hex').slice(0, 16)}`;
}

function refused(detail: string): DomainError {
  return new DomainError('UNAUTHENTICATED', detail);
}

/** The paired app device a callback URL names, with its signing key; 401 for anything else. */
async function appDevice(db: Database, deviceId: string): Promise<{ principal: DevicePrincipal; key: string }> {
  const [row] = await db
    .select()
    .from(devices)
    .where(and(eq(devices.id, deviceId), eq(devices.kind, 'app'), eq(devices.status, 'activated')));
  if (!row?.signingKeyEncrypted) throw refused('This device is not paired with Simgate (or was revoked).');
  return {
    principal: {
      kind: 'device',
      deviceId: row.id,
      accountId: row.accountId,
      phoneNumber: row.phoneNumber,
      status: row.status,
    },
    key: decryptSecret(row.signingKeyEncrypted, DEVICE_SIGNING_KEY_PURPOSE),
  };
}

function parsed<T>(
  schema: { safeParse: (value: unknown) => { success: true; data: T } | { success: false } },
  value: unknown,
  what: string,
): T {
  const result = schema.safeParse(value);
  if (!result.success) throw validationError('payload', `not a valid ${what} payload`);
  return result.data;
}

/**
 * A webhook call of the SMSGate app (`{ id, webhookId, event, deviceId, payload }`), verified
 * against the device's signing key over the raw body and a 5-minute timestamp window, then
 * mapped onto what a simulator's device key does: `sms:received` → an inbound message
 * (idempotent on the payload's `messageId`, a hash of the SMS the app sends again on retries),
 * `sms:sent|delivered|failed` → state reports (a repeat changes nothing), `system:ping` → a
 * heartbeat with the battery level. Events Simgate does not read are accepted and ignored.
 */
export async function handleAppCallback(
  db: Database,
  deviceId: string,
  raw: Uint8Array,
  headers: { signature: string | null; timestamp: string | null },
): Promise<void> {
  const { principal, key } = await appDevice(db, deviceId);
  const check = checkAppSignature(key, raw, headers);
  if (!check.ok) throw refused(check.reason);
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(raw));
  } catch {
    throw validationError('body', 'malformed JSON');
  }
  const envelope = parsed(callbackEnvelope, body, 'webhook');
  if (envelope.deviceId && envelope.deviceId !== principal.deviceId) {
    throw new DomainError('FORBIDDEN', 'The body names another device than the callback URL.');
  }
  const phone = await findDevicePhone(db, principal);
  switch (envelope.event) {
    case 'sms:received': {
      const sms = parsed(receivedPayload, envelope.payload, 'sms:received');
      const from = sms.sender ?? sms.phoneNumber;
      if (!from) throw validationError('payload.sender', 'required');
      await receiveMessage(db, principal, {
        from: senderAsStored(from, phone.phone),
        content: sms.message,
        receivedAt: sms.receivedAt ?? undefined,
        deviceMessageId: inboundId(sms.messageId, from, sms.message),
      });
      return;
    }
    case 'sms:sent':
    case 'sms:delivered':
    case 'sms:failed': {
      const report = parsed(statusPayload, envelope.payload, envelope.event);
      const state =
        envelope.event === 'sms:sent' ? 'Sent' : envelope.event === 'sms:delivered' ? 'Delivered' : 'Failed';
      await applyAppState(db, phone, { id: report.messageId, state, error: report.reason });
      return;
    }
    case 'system:ping': {
      const ping = parsed(pingPayload, envelope.payload, 'system:ping');
      const level = ping.health?.checks?.['battery:level']?.observedValue;
      const battery = typeof level === 'number' ? Math.min(100, Math.max(0, Math.round(level))) : null;
      await recordHeartbeat(db, principal, { phone: phone.phone, status: 'online', battery });
      return;
    }
    default:
      return;
  }
}
