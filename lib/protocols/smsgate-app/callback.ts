import { createHash } from 'node:crypto';
import type { Database, Transaction } from '@/db';
import type { DevicePrincipal } from '@/lib/auth/principal';
import { type PendingAutomation, runPendingAutomation } from '@/lib/automation/pending';
import { decryptSecret } from '@/lib/crypto/secret-box';
import { isSmsGateEncrypted } from '@/lib/crypto/smsgate-format';
import { claimCallbackId } from '@/lib/devices/callback-ids';
import { findDevice } from '@/lib/devices/device';
import { DEVICE_SIGNING_KEY_PURPOSE } from '@/lib/devices/pairing';
import { DomainError, validationError } from '@/lib/errors';
import { recordHeartbeat } from '@/lib/heartbeats/record';
import { type DevicePhone, findDevicePhone } from '@/lib/messages/device-phone';
import { receiveMessage } from '@/lib/messages/receive';
import { inboundSender } from '@/lib/messages/schemas';
import { senderAsStored, toE164 } from '@/lib/phone-number';
import { withTransaction } from '@/lib/transactions';
import type { z } from '@/lib/zod';
import { countExportedInbound } from './inbox-export';
import { applyAppState } from './messages';
import {
  callbackEnvelope,
  dataReceivedPayload,
  mmsDownloadedPayload,
  mmsReceivedPayload,
  pingPayload,
  receivedPayload,
  statusPayload,
} from './schemas';
import { checkAppSignature, SIGNATURE_TOLERANCE_SECONDS } from './signature';

/**
 * The inbound message's idempotency key. The app's `messageId` is a 32-bit hash of the SMS (the
 * same on every retry), so two different SMS can share it; the sender and text decide between them.
 */
function inboundId(messageId: string, from: string, text: string): string {
  return `${messageId}:${createHash('sha256').update(`${from}\n${text}`).digest('hex').slice(0, 16)}`;
}

/**
 * How long a call id is remembered: a signed call verifies while its timestamp is within the
 * tolerance either side of now, so for up to twice the tolerance after it was first seen.
 */
export const CALLBACK_ID_RETENTION_SECONDS = 2 * SIGNATURE_TOLERANCE_SECONDS;

// C0 controls and DEL: a sender is a line of text, never a header or a log line of its own.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f]/;

function refused(detail: string): DomainError {
  return new DomainError('UNAUTHENTICATED', detail);
}

/** The paired app device a callback URL names, with its signing key; 401 for anything else. */
async function appDevice(db: Database, deviceId: string): Promise<{ principal: DevicePrincipal; key: string }> {
  const found = await findDevice(db, deviceId);
  const row = found?.kind === 'app' && found.status === 'activated' ? found : undefined;
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
 * (idempotent on the payload's `messageId`, a hash of the SMS the app sends again on retries;
 * its sender checked as the device API checks one), `sms:sent|delivered|failed` → state reports
 * (a repeat changes nothing), `system:ping` → a heartbeat with the battery level,
 * `sms:data-received` → an inbound message of kind `data` (its base64 bytes as content),
 * `mms:received` / `mms:downloaded` → an inbound message of kind `mms` each (subject, size,
 * attachment count and types in `details`; no attachment bytes kept), `app:started` → an online
 * heartbeat. `sms:received` also counts toward an open inbox export (inbox-export.ts). Events
 * Simgate does not read (`sms:cancelled` among them) are accepted and ignored. A call id already
 * processed for the device within CALLBACK_ID_RETENTION_SECONDS is answered 2xx and changes
 * nothing (replays, lost answers).
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
  // Each call id is processed once: a replay (or a retry whose answer was lost) within the window
  // finds its id taken and changes nothing. A call that fails leaves no id, so its retry runs.
  const pending = await withTransaction(db, async (tx) => {
    if (!(await claimCallbackId(tx, principal.deviceId, envelope.id, CALLBACK_ID_RETENTION_SECONDS))) return null;
    return applyCallback(tx, principal, phone, envelope);
  });
  // A received SMS's rules run after the commit that recorded it (lib/messages/receive.ts).
  if (pending) await runPendingAutomation(db, pending);
}

/**
 * The longest sender kept as ciphertext: a number or sender id (at most 16 bytes) encrypts to about
 * 100 characters in the app's format, whatever the iteration count.
 */
const MAX_ENCRYPTED_SENDER_LENGTH = 256;

/**
 * A received SMS's sender as stored: a phone number as the phone wrote it (E.164 or national, read
 * in the receiving phone's country) in E.164, else what the device API accepts (a short code or an
 * alphanumeric sender id); in an encrypted SMS, a sender in the app's encrypted format is kept as
 * it is, up to MAX_ENCRYPTED_SENDER_LENGTH characters. Control characters are refused, never
 * trimmed away, encrypted or not.
 */
function senderOf(raw: string, receivingNumber: string, encrypted = false): string {
  if (CONTROL_CHARACTERS.test(raw)) throw validationError('payload.sender', 'must not contain control characters');
  if (encrypted && isSmsGateEncrypted(raw)) {
    if (raw.length <= MAX_ENCRYPTED_SENDER_LENGTH) return raw;
    throw validationError('payload.sender', `an encrypted sender is at most ${MAX_ENCRYPTED_SENDER_LENGTH} characters`);
  }
  const stored = senderAsStored(raw, receivingNumber);
  if (toE164(stored) === stored) return stored;
  const result = inboundSender.safeParse(stored);
  if (!result.success) throw validationError('payload.sender', 'not a phone number, short code or sender id');
  return result.data;
}

/**
 * An SMS the app reports in the passphrase format: marked `isEncrypted: true`, or its text in that
 * format (the app at 0cdc5d8 reports received SMS in clear; an SMS whose text is itself ciphertext,
 * or an app that encrypts what it reports, is kept as ciphertext and marked so).
 */
function isEncryptedReceived(sms: z.output<typeof receivedPayload>, sender: string): boolean {
  if (sms.isEncrypted === true) return true;
  return isSmsGateEncrypted(sms.message) || isSmsGateEncrypted(sender);
}

async function applyCallback(
  tx: Transaction,
  principal: DevicePrincipal,
  phone: DevicePhone,
  envelope: z.output<typeof callbackEnvelope>,
): Promise<PendingAutomation | null> {
  switch (envelope.event) {
    case 'sms:received': {
      const sms = parsed(receivedPayload, envelope.payload, 'sms:received');
      const raw = sms.sender ?? sms.phoneNumber;
      if (!raw) throw validationError('payload.sender', 'required');
      const encrypted = isEncryptedReceived(sms, raw);
      const { created, pending } = await receiveMessage(tx, principal, {
        from: senderOf(raw, phone.phone, encrypted),
        content: sms.message,
        encrypted,
        receivedAt: sms.receivedAt ?? undefined,
        // The raw sender, as before: the key of an SMS received before this check stays the same.
        deviceMessageId: inboundId(sms.messageId, raw, sms.message),
      });
      await countExportedInbound(tx, phone, sms.receivedAt ?? undefined, created);
      return pending;
    }
    case 'sms:data-received': {
      const sms = parsed(dataReceivedPayload, envelope.payload, envelope.event);
      const raw = sms.sender ?? sms.phoneNumber;
      if (!raw) throw validationError('payload.sender', 'required');
      await receiveMessage(tx, principal, {
        from: senderOf(raw, phone.phone),
        content: sms.data,
        receivedAt: sms.receivedAt ?? undefined,
        kind: 'data',
        details: { event: envelope.event },
        deviceMessageId: `data:${inboundId(sms.messageId, raw, sms.data)}`,
      });
      return null;
    }
    case 'mms:received': {
      const mms = parsed(mmsReceivedPayload, envelope.payload, envelope.event);
      const raw = mms.sender ?? mms.phoneNumber;
      if (!raw) throw validationError('payload.sender', 'required');
      await receiveMessage(tx, principal, {
        from: senderOf(raw, phone.phone),
        content: mms.subject ?? '',
        receivedAt: mms.receivedAt ?? undefined,
        kind: 'mms',
        details: {
          event: envelope.event,
          subject: mms.subject ?? null,
          size: mms.size ?? null,
          content_class: mms.contentClass ?? null,
          transaction_id: mms.transactionId ?? null,
        },
        deviceMessageId: `mms-received:${mms.messageId}`,
      });
      return null;
    }
    case 'mms:downloaded': {
      const mms = parsed(mmsDownloadedPayload, envelope.payload, envelope.event);
      const raw = mms.sender ?? mms.phoneNumber;
      if (!raw) throw validationError('payload.sender', 'required');
      const attachments = mms.attachments ?? [];
      await receiveMessage(tx, principal, {
        from: senderOf(raw, phone.phone),
        content: mms.body ?? mms.subject ?? '',
        receivedAt: mms.receivedAt ?? undefined,
        kind: 'mms',
        details: {
          event: envelope.event,
          subject: mms.subject ?? null,
          size: attachments.reduce((sum, part) => sum + (part.size ?? 0), 0),
          attachment_count: attachments.length,
          attachment_types: attachments.map((part) => part.contentType ?? 'application/octet-stream'),
        },
        deviceMessageId: `mms-downloaded:${mms.messageId}`,
      });
      return null;
    }
    case 'app:started':
      await recordHeartbeat(tx, principal, { phone: phone.phone, status: 'online' });
      return null;
    case 'sms:sent':
    case 'sms:delivered':
    case 'sms:failed': {
      const report = parsed(statusPayload, envelope.payload, envelope.event);
      const state =
        envelope.event === 'sms:sent' ? 'Sent' : envelope.event === 'sms:delivered' ? 'Delivered' : 'Failed';
      await applyAppState(tx, phone, { id: report.messageId, state, error: report.reason });
      return null;
    }
    case 'system:ping': {
      const ping = parsed(pingPayload, envelope.payload, 'system:ping');
      const level = ping.health?.checks?.['battery:level']?.observedValue;
      const battery = typeof level === 'number' ? Math.min(100, Math.max(0, Math.round(level))) : null;
      await recordHeartbeat(tx, principal, { phone: phone.phone, status: 'online', battery });
      return null;
    }
    default:
      return null;
  }
}
