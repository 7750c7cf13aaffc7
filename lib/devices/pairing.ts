import { createHmac, randomBytes, randomInt } from 'node:crypto';
import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import type { Executor, Transaction } from '@/db';
import { devices, pairingCodes, phones, type SimCard } from '@/db/schema';
import { recordAudit } from '@/lib/audit/record';
import { clearKeyCache } from '@/lib/auth/key-lookup';
import { generateKey, KEY_PREFIX_LENGTH } from '@/lib/auth/keys';
import { appSecret, config } from '@/lib/config';
import { encryptSecret } from '@/lib/crypto/secret-box';
import { DomainError } from '@/lib/errors';
import { ownedPhone } from '@/lib/phones/owned';
import { startSimCheck } from '@/lib/phones/sim-check';
import { ipBucket } from '@/lib/rate-limit/client-ip';
import { consumeRateLimits } from '@/lib/rate-limit/consume';
import { isUniqueViolation, withTransaction } from '@/lib/transactions';
import { iso } from '@/lib/wire';
import { switchPhoneToDevice } from './attach';
import { guardPairingAttempt, recordPairingFailure, voidedByFailures } from './pairing-failures';

export const PAIRING_CODE_DIGITS = 8;
export const PAIRING_CODE_LIFETIME_SECONDS = 600;
const PAIRING_RATE_WINDOW_SECONDS = 3600;
const REGISTER_IP_WINDOW_SECONDS = 3600;
/** Purpose of the sealed signing key (secret-box keys are per purpose). */
export const DEVICE_SIGNING_KEY_PURPOSE = 'device-signing-key';

/**
 * The stored form of a code: an HMAC under APP_SECRET, so that a code finds its row by index and
 * a copy of the table does not give the codes away.
 */
export function pairingCodeHash(code: string): string {
  return createHmac('sha256', appSecret()).update(`pairing:${code}`).digest('hex');
}

function newCode(): string {
  return String(randomInt(0, 10 ** PAIRING_CODE_DIGITS)).padStart(PAIRING_CODE_DIGITS, '0');
}

/**
 * A new pairing code for a phone of the account: 8 digits (the app's code field takes digits
 * only), single use, alive 10 minutes. Issuing one voids the phone's earlier codes; issuing is
 * limited per account (`PAIRING_RATE_LIMIT` an hour).
 */
export async function issuePairingCode(
  executor: Executor,
  accountId: string,
  phoneId: string,
  context: { serverUrl: string },
) {
  return withTransaction(executor, async (tx) => {
    const phone = await ownedPhone(tx, accountId, phoneId, { lock: 'no key update' });
    await consumeRateLimits(tx, [
      {
        bucket: `pairing:${accountId}`,
        limit: config.pairingRateLimit,
        windowSeconds: PAIRING_RATE_WINDOW_SECONDS,
        what: 'pairing codes for this account',
      },
    ]);
    await tx
      .update(pairingCodes)
      .set({ consumedAt: sql`now()` })
      .where(and(eq(pairingCodes.phoneId, phone.id), isNull(pairingCodes.consumedAt)));
    // Two live codes may not share a hash: on that (1 in 10^8) collision, draw again.
    for (let attempt = 0; ; attempt++) {
      const code = newCode();
      try {
        const [row] = await tx.transaction((savepoint) =>
          savepoint
            .insert(pairingCodes)
            .values({
              accountId,
              phoneId: phone.id,
              codeHash: pairingCodeHash(code),
              expiresAt: sql`now() + make_interval(secs => ${PAIRING_CODE_LIFETIME_SECONDS})`,
            })
            .returning({ expiresAt: pairingCodes.expiresAt }),
        );
        if (!row) throw new Error('issuePairingCode: insert returned no row');
        // Never the code: who asked for one, for which phone, and until when it works.
        await recordAudit(tx, {
          accountId,
          action: 'pairing_code.issued',
          target: phone.id,
          details: { phone: phone.phone, expires_at: iso(row.expiresAt) },
        });
        return { code, expires_at: iso(row.expiresAt) ?? '', server_url: context.serverUrl };
      } catch (error) {
        if (attempt < 3 && isUniqueViolation(error, 'pairing_codes_live_hash_key')) continue;
        throw error;
      }
    }
  });
}

/** What the SMSGate app says about itself when it registers. */
export type AppRegistration = {
  name: string | null;
  pushToken: string | null;
  simCards: SimCard[];
};

export type PairedDevice = {
  deviceId: string;
  accountId: string;
  phoneId: string;
  phone: string;
  /** The device credential (`dk_…`), shown this once. */
  token: string;
};

function badCode(): DomainError {
  return new DomainError(
    'UNAUTHENTICATED',
    'This pairing code is not valid or was already used. Get a new code on the phone’s page in the Simgate dashboard.',
  );
}

/**
 * Redeems a pairing code for the SMSGate app: a new device of kind `app`, activated in the code's
 * account for the code's phone, with its own credential and callback signing key. The phone
 * switches to it (its earlier devices are revoked), and its SIM check starts: until the check SMS
 * arrives, the phone sends nothing else. Guessing is bounded three ways: every attempt
 * counts against the client address's registration limit (IPv6 by its /64), wrong codes against
 * the instance's cap a minute, and a code dies once too many wrong codes were tried since it was
 * issued (lib/devices/pairing-failures.ts).
 */
export async function redeemPairingCode(
  executor: Executor,
  code: string,
  registration: AppRegistration,
  context: { clientIp: string },
): Promise<PairedDevice> {
  await consumeRateLimits(executor, [
    {
      bucket: ipBucket('register-ip', context.clientIp),
      limit: config.registerIpRateLimit,
      windowSeconds: REGISTER_IP_WINDOW_SECONDS,
      what: 'device registrations from this address',
    },
  ]);
  if (!new RegExp(`^\\d{${PAIRING_CODE_DIGITS}}$`).test(code)) throw badCode();
  const outcome = await withTransaction(executor, async (tx) => {
    await guardPairingAttempt(tx);
    const [row] = await tx
      .select({
        id: pairingCodes.id,
        accountId: pairingCodes.accountId,
        phoneId: pairingCodes.phoneId,
        createdAt: pairingCodes.createdAt,
        expired: sql<boolean>`${pairingCodes.expiresAt} <= now()`,
      })
      .from(pairingCodes)
      .where(and(eq(pairingCodes.codeHash, pairingCodeHash(code)), isNull(pairingCodes.consumedAt)))
      .orderBy(desc(pairingCodes.createdAt))
      .limit(1)
      .for('update');
    if (!row || row.expired) {
      await recordPairingFailure(tx, { clientIp: context.clientIp, keepSeconds: PAIRING_CODE_LIFETIME_SECONDS });
      return { paired: null, failure: row ? ('expired' as const) : ('unknown' as const) };
    }
    if (await voidedByFailures(tx, row.createdAt)) {
      await tx.update(pairingCodes).set({ consumedAt: sql`now()` }).where(eq(pairingCodes.id, row.id));
      return { paired: null, failure: 'voided' as const };
    }
    return { paired: await pairWithCode(tx, row, registration, context) };
  });
  if (!outcome.paired) throw pairingFailure(outcome.failure);
  clearKeyCache();
  return outcome.paired;
}

function pairingFailure(failure: 'unknown' | 'expired' | 'voided'): DomainError {
  if (failure === 'expired') {
    return new DomainError(
      'CODE_EXPIRED',
      'This pairing code has expired (codes live 10 minutes). Get a new code in the Simgate dashboard.',
    );
  }
  if (failure === 'voided') {
    return new DomainError(
      'UNAUTHENTICATED',
      'This pairing code no longer works: too many wrong codes were tried on this server since it was issued. Get a new code on the phone’s page in the Simgate dashboard.',
    );
  }
  return badCode();
}

async function pairWithCode(
  tx: Transaction,
  code: { id: string; accountId: string; phoneId: string },
  registration: AppRegistration,
  context: { clientIp: string },
): Promise<PairedDevice> {
  const [phone] = await tx
    .select({ id: phones.id, phone: phones.phone })
    .from(phones)
    .where(and(eq(phones.id, code.phoneId), eq(phones.accountId, code.accountId)))
    .for('no key update');
  if (!phone) throw badCode();
  assertSimsMatch(phone.phone, registration.simCards);
  const device = await createAppDevice(tx, code.accountId, phone.phone, registration);
  await tx
    .update(pairingCodes)
    .set({ consumedAt: sql`now()`, deviceId: device.id })
    .where(eq(pairingCodes.id, code.id));
  await switchPhoneToDevice(tx, code.accountId, phone.phone, device.id);
  // The app, not a person, acts here: its new credential's prefix names it.
  await recordAudit(tx, {
    accountId: code.accountId,
    action: 'phone.paired',
    target: phone.id,
    details: { phone: phone.phone, device_id: device.id, name: registration.name },
    actor: { kind: 'device', label: device.token.slice(0, KEY_PREFIX_LENGTH), ip: context.clientIp },
  });
  await startSimCheck(tx, { id: phone.id, accountId: code.accountId, phone: phone.phone }, device.id);
  return {
    deviceId: device.id,
    accountId: code.accountId,
    phoneId: phone.id,
    phone: phone.phone,
    token: device.token,
  };
}

async function createAppDevice(tx: Transaction, accountId: string, number: string, registration: AppRegistration) {
  const key = generateKey('device');
  const signingKey = randomBytes(24).toString('base64url');
  const [device] = await tx
    .insert(devices)
    .values({
      kind: 'app',
      phoneNumber: number,
      status: 'activated',
      accountId,
      keyHash: key.hash,
      keyPrefix: key.prefix,
      name: registration.name,
      pushToken: registration.pushToken,
      simCards: registration.simCards,
      signingKeyEncrypted: encryptSecret(signingKey, DEVICE_SIGNING_KEY_PURPOSE),
      activatedAt: sql`now()`,
    })
    .returning({ id: devices.id });
  if (!device) throw new Error('createAppDevice: insert returned no row');
  return { id: device.id, token: key.key };
}

/** The last four digits of each SIM number the app could read; a phone is not asked to know them. */
function reportedSuffixes(simCards: SimCard[]): string[] {
  return simCards.flatMap((card) => {
    const digits = (card.phone_number ?? '').replace(/\D/g, '');
    return digits.length >= 4 ? [digits.slice(-4)] : [];
  });
}

/**
 * 409 SIM_MISMATCH when the app reports SIM numbers and none of them ends like the phone's
 * number: the app sits in a phone that cannot be this number. SIMs without a readable number
 * prove nothing either way; the SIM check settles those.
 */
export function assertSimsMatch(number: string, simCards: SimCard[]): void {
  const suffixes = reportedSuffixes(simCards);
  if (suffixes.length === 0) return;
  const own = number.replace(/\D/g, '').slice(-4);
  if (!suffixes.includes(own)) {
    throw new DomainError(
      'SIM_MISMATCH',
      `This phone's SIM numbers end in ${suffixes.join(', ')}, not in ${own} like ${number}. Pair the app from the page of the number this phone has.`,
    );
  }
}
