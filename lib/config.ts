import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { dataDir, isServerMode } from '@/db';

function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

function positive(name: string, fallback: number): number {
  const value = intFromEnv(name, fallback);
  if (value === 0) throw new Error(`${name} must be at least 1`);
  return value;
}

/**
 * Every setting the service reads, with its default. Read lazily so that tests can set the
 * environment first; the README's configuration table lists the same names.
 */
export const config = {
  get serverMode() {
    return isServerMode();
  },
  get starterCredits() {
    return intFromEnv('STARTER_CREDITS', 100);
  },
  get verificationRateLimit() {
    return intFromEnv('VERIFICATION_RATE_LIMIT', 5);
  },
  get verificationRateWindowSeconds() {
    return intFromEnv('VERIFICATION_RATE_WINDOW_S', 3600);
  },
  get registerIpRateLimit() {
    return intFromEnv('REGISTER_IP_RATE_LIMIT', 100);
  },
  get pairingRateLimit() {
    return intFromEnv('PAIRING_RATE_LIMIT', 10);
  },
  get heartbeatTimeoutSeconds() {
    return intFromEnv('HEARTBEAT_TIMEOUT_S', 300);
  },
  get planLimits() {
    return {
      free: { phones: intFromEnv('PLAN_FREE_PHONES', 3), groups: intFromEnv('PLAN_FREE_GROUPS', 3) },
      pro: { phones: intFromEnv('PLAN_PRO_PHONES', 50), groups: intFromEnv('PLAN_PRO_GROUPS', 50) },
    };
  },
  get heartbeatSweepIntervalSeconds() {
    return positive('HEARTBEAT_SWEEP_INTERVAL_S', 30);
  },
  get messageExpirySweepSeconds() {
    return positive('MESSAGE_EXPIRY_SWEEP_S', 30);
  },
  get apiKeyRateLimit() {
    return intFromEnv('API_KEY_RATE_LIMIT', 200);
  },
  get keyCacheTtlMs() {
    return intFromEnv('KEY_CACHE_TTL_MS', 5000);
  },
  get devInboxEnabled() {
    return !isServerMode() || process.env.DEV_INBOX === '1';
  },
  get webhookAllowPrivateNetworks() {
    return !isServerMode() || process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS === '1';
  },
  get smtpUrl() {
    return process.env.SMTP_URL || undefined;
  },
  get mailFrom() {
    return process.env.MAIL_FROM ?? 'Simgate <no-reply@simgate.local>';
  },
  get appUrl() {
    return process.env.APP_URL ?? process.env.NEXTAUTH_URL ?? undefined;
  },
};

let cachedSecret: string | undefined;

/**
 * The secret behind sessions and at-rest encryption. Server mode requires `APP_SECRET`; local
 * mode generates one on first start and keeps it in the data folder (mode 0600).
 */
export function appSecret(): string {
  if (cachedSecret) return cachedSecret;
  const fromEnv = process.env.APP_SECRET;
  if (fromEnv) {
    if (fromEnv.length < 32) throw new Error('APP_SECRET must be at least 32 characters');
    cachedSecret = fromEnv;
    return fromEnv;
  }
  if (isServerMode()) throw new Error('APP_SECRET is required when DATABASE_URL is set (server mode)');
  const file = path.join(dataDir(), 'secret');
  try {
    cachedSecret = fs.readFileSync(file, 'utf8').trim();
  } catch {
    fs.mkdirSync(dataDir(), { recursive: true });
    const generated = randomBytes(48).toString('base64url');
    try {
      fs.writeFileSync(file, generated, { mode: 0o600, flag: 'wx' });
      cachedSecret = generated;
    } catch {
      // Another process wrote it first: use theirs.
      cachedSecret = fs.readFileSync(file, 'utf8').trim();
    }
  }
  return cachedSecret;
}
