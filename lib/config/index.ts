import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { DatabaseLocation } from '@/db';
import { configProblems, readSetting } from './env';

export { configProblems } from './env';

/**
 * Every setting the service reads, through the schema in lib/config/env.ts: the only reader of the
 * environment (besides NODE_ENV/NEXT_RUNTIME checks, lib/log.ts's level and scripts/start.mjs).
 * Read at use, so that tests can change the environment first; `assertConfig()` checks them all
 * once at start, and the server then reads them as they were at its start (`freezeSettings`).
 */
export const config = {
  /** DATABASE_URL set: a PostgreSQL server instead of the embedded database. */
  get serverMode() {
    return readSetting('DATABASE_URL') !== undefined;
  },
  get database(): DatabaseLocation {
    const url = readSetting('DATABASE_URL');
    return url
      ? {
          url,
          poolSize: readSetting('DATABASE_POOL_SIZE'),
          pipelineSize: readSetting('DATABASE_PIPELINE_SIZE'),
          limits: {
            connectTimeoutS: readSetting('DATABASE_CONNECT_TIMEOUT_S'),
            statementTimeoutMs: readSetting('DATABASE_STATEMENT_TIMEOUT_MS'),
            acquireTimeoutMs: readSetting('DATABASE_ACQUIRE_TIMEOUT_MS'),
            maxWaiting: readSetting('DATABASE_MAX_WAITING'),
            requestDeadlineMs: readSetting('REQUEST_DEADLINE_MS'),
          },
        }
      : { dataDir: this.dataDir };
  },
  /** Local mode: where the embedded database and the generated secret live. */
  get dataDir() {
    return readSetting('DATA_DIR');
  },
  get starterCredits() {
    return readSetting('STARTER_CREDITS');
  },
  get verificationRateLimit() {
    return readSetting('VERIFICATION_RATE_LIMIT');
  },
  get verificationRateWindowSeconds() {
    return readSetting('VERIFICATION_RATE_WINDOW_S');
  },
  get registerIpRateLimit() {
    return readSetting('REGISTER_IP_RATE_LIMIT');
  },
  get pairingRateLimit() {
    return readSetting('PAIRING_RATE_LIMIT');
  },
  /** The longest a message search's statement runs (lib/messages/list.ts). */
  get searchBudgetMs() {
    return readSetting('SEARCH_BUDGET_MS');
  },
  /** A message handed to a phone and not reported within this is handed out again (lib/messages/claim.ts). */
  get claimRedeliverAfterSeconds() {
    return readSetting('CLAIM_REDELIVER_AFTER_S');
  },
  get pairingFailuresPerMinute() {
    return readSetting('PAIRING_FAILURES_PER_MINUTE');
  },
  get pairingCodeMaxFailures() {
    return readSetting('PAIRING_CODE_MAX_FAILURES');
  },
  get heartbeatTimeoutSeconds() {
    return readSetting('HEARTBEAT_TIMEOUT_S');
  },
  get planLimits() {
    return {
      free: {
        phones: readSetting('PLAN_FREE_PHONES'),
        groups: readSetting('PLAN_FREE_GROUPS'),
        webhooks: readSetting('PLAN_FREE_WEBHOOKS'),
        rule_actions: readSetting('PLAN_FREE_RULE_ACTIONS'),
        smpp_binds: readSetting('PLAN_FREE_SMPP_BINDS'),
      },
      pro: {
        phones: readSetting('PLAN_PRO_PHONES'),
        groups: readSetting('PLAN_PRO_GROUPS'),
        webhooks: readSetting('PLAN_PRO_WEBHOOKS'),
        rule_actions: readSetting('PLAN_PRO_RULE_ACTIONS'),
        smpp_binds: readSetting('PLAN_PRO_SMPP_BINDS'),
      },
    };
  },
  get heartbeatSweepIntervalSeconds() {
    return readSetting('HEARTBEAT_SWEEP_INTERVAL_S');
  },
  get statusCallbackUrlsPerAccount() {
    return readSetting('STATUS_CALLBACK_URLS_PER_ACCOUNT');
  },
  get autoReplyLimit() {
    return readSetting('AUTO_REPLY_LIMIT');
  },
  get autoSmsAccountHourlyLimit() {
    return readSetting('AUTO_SMS_ACCOUNT_HOURLY_LIMIT');
  },
  get mcpEnabled() {
    return readSetting('MCP_ENABLED');
  },
  get autoSmsPremiumRate() {
    return readSetting('AUTO_SMS_PREMIUM_RATE');
  },
  get simCheckResendsPerHour() {
    return readSetting('SIM_CHECK_RESENDS_PER_HOUR');
  },
  get autoEmailAccountHourlyLimit() {
    return readSetting('AUTO_EMAIL_ACCOUNT_HOURLY_LIMIT');
  },
  /** The work budget of one inbound message: rule actions past it are skipped (lib/automation/decide.ts). */
  get automationStepsPerMessage() {
    return readSetting('AUTOMATION_STEPS_PER_MESSAGE');
  },
  get alertEvaluationIntervalSeconds() {
    return readSetting('ALERT_EVALUATION_INTERVAL_S');
  },
  get alertEmailsPerHour() {
    return readSetting('ALERT_EMAILS_PER_HOUR');
  },
  get limitPauseSeconds() {
    return readSetting('LIMIT_PAUSE_SECONDS');
  },
  get accountMaxQueued() {
    return readSetting('ACCOUNT_MAX_QUEUED');
  },
  get retryBackoffSeconds() {
    return readSetting('RETRY_BACKOFF_SECONDS');
  },
  get messageExpirySweepSeconds() {
    return readSetting('MESSAGE_EXPIRY_SWEEP_S');
  },
  get apiKeyRateLimit() {
    return readSetting('API_KEY_RATE_LIMIT');
  },
  /** The SMPP server's listeners (lib/protocols/smpp/listen.ts): none unless SMPP_PORT or SMPP_TLS_PORT is set. */
  get smpp() {
    return {
      port: readSetting('SMPP_PORT'),
      tlsPort: readSetting('SMPP_TLS_PORT'),
      tlsCert: readSetting('SMPP_TLS_CERT'),
      tlsKey: readSetting('SMPP_TLS_KEY'),
      window: readSetting('SMPP_WINDOW'),
    };
  },
  get keyCacheTtlMs() {
    return readSetting('KEY_CACHE_TTL_MS');
  },
  get sseStreamsPerAccount() {
    return readSetting('SSE_STREAMS_PER_ACCOUNT');
  },
  get sseStreamsPerInstance() {
    return readSetting('SSE_STREAMS_PER_INSTANCE');
  },
  get smsgateTokensPerAccount() {
    return readSetting('SMSGATE_TOKENS_PER_ACCOUNT');
  },
  get waitingClaimsPerAccount() {
    return readSetting('WAITING_CLAIMS_PER_ACCOUNT');
  },
  get waitingClaimsPerInstance() {
    return readSetting('WAITING_CLAIMS_PER_INSTANCE');
  },
  get phoneConnectsPerSecond() {
    return readSetting('PHONE_CONNECTS_PER_S');
  },
  /** BACKGROUND=off: this web instance leaves sweeps and deliveries to `npm run worker` processes. */
  get backgroundWork() {
    return readSetting('BACKGROUND') === 'on';
  },
  get devInboxEnabled() {
    return !this.serverMode || readSetting('DEV_INBOX');
  },
  get webhookAllowPrivateNetworks() {
    return !this.serverMode || readSetting('WEBHOOK_ALLOW_PRIVATE_NETWORKS');
  },
  /** Webhook posts in flight per account, across workers (lib/webhooks/worker.ts). */
  get webhookAccountInFlight() {
    return readSetting('WEBHOOK_ACCOUNT_IN_FLIGHT');
  },
  /** A PEM file of extra CAs for webhook receivers, read at each delivery. */
  get extraCaCertsFile() {
    return readSetting('NODE_EXTRA_CA_CERTS');
  },
  /** What the retention sweep keeps, and for how long (lib/retention). */
  get retention() {
    return {
      contentDays: readSetting('RETENTION_MESSAGE_CONTENT_DAYS') ?? null,
      contentMode: readSetting('RETENTION_MESSAGE_CONTENT_MODE'),
      hashCounterpart: readSetting('RETENTION_HASH_COUNTERPART'),
      webhookDeliveriesDays: readSetting('RETENTION_WEBHOOK_DELIVERIES_DAYS'),
      heartbeatsDays: readSetting('RETENTION_HEARTBEATS_DAYS'),
      auditDays: readSetting('RETENTION_AUDIT_DAYS'),
    };
  },
  get retentionSweepIntervalSeconds() {
    return readSetting('RETENTION_SWEEP_INTERVAL_S');
  },
  get retentionSweepDutyPercent() {
    return readSetting('RETENTION_SWEEP_DUTY_PERCENT');
  },
  get smtpUrl() {
    return readSetting('SMTP_URL');
  },
  get mailFrom() {
    return readSetting('MAIL_FROM');
  },
  get appUrl() {
    return readSetting('APP_URL') ?? readSetting('NEXTAUTH_URL');
  },
  /** ALLOWED_HOSTS: more Host names the app answers, comma-separated. */
  get allowedHosts() {
    return readSetting('ALLOWED_HOSTS');
  },
  /** Which hops may say who the client is (TRUST_PROXY); null trusts none. */
  get trustedProxies() {
    return readSetting('TRUST_PROXY') ?? null;
  },
  /** The token `npm start`'s server vouches for socket addresses with. */
  get peerToken() {
    return readSetting('SIMGATE_PEER_TOKEN');
  },
  /** METRICS_TOKEN: the Bearer token for /metrics from other machines. */
  get metricsToken() {
    return readSetting('METRICS_TOKEN');
  },
  /** HOST: the address the server (and the worker's metrics listener) listens on. */
  get listenHost() {
    return readSetting('HOST') ?? '127.0.0.1';
  },
  /** Email to SMS (lib/protocols/email): its SMTP port, undefined when off. */
  get smtpPort() {
    return readSetting('SMTP_PORT');
  },
  get smtpTls() {
    const cert = readSetting('SMTP_TLS_CERT');
    const key = readSetting('SMTP_TLS_KEY');
    return cert && key ? { cert, key } : undefined;
  },
  /** The domains whose addresses become SMS: SMTP_DOMAINS, else the host of APP_URL. */
  get smtpDomains(): string[] {
    const listed = readSetting('SMTP_DOMAINS');
    if (listed) return listed;
    const appUrl = readSetting('APP_URL') ?? readSetting('NEXTAUTH_URL');
    return appUrl ? [new URL(appUrl).hostname.toLowerCase()] : [];
  },
  get smtpAllowConfirmedSenders() {
    return readSetting('SMTP_ALLOW_CONFIRMED_SENDERS');
  },
  /** METRICS_PORT: where `npm run worker` serves /metrics. */
  get metricsPort() {
    return readSetting('METRICS_PORT');
  },
  get verificationSenderPhone() {
    return readSetting('VERIFICATION_SENDER_PHONE');
  },
  get verificationSenderEmail() {
    return readSetting('VERIFICATION_SENDER_EMAIL');
  },
};

/**
 * The start-up check (`npm start`, `npm run worker`, `npm run ops`, `npm run db:migrate`): throws
 * one Error listing every problem, so a bad deployment refuses to start instead of failing request
 * by request.
 */
export function assertConfig(env: Record<string, string | undefined> = process.env): void {
  const problems = configProblems(env);
  if (problems.length > 0) throw new Error(`Simgate cannot start:\n- ${problems.join('\n- ')}`);
}

let cachedSecret: string | undefined;

/**
 * The secret behind sessions and at-rest encryption. Server mode requires `APP_SECRET`; local
 * mode generates one on first start and keeps it in the data folder (mode 0600).
 */
export function appSecret(): string {
  if (cachedSecret) return cachedSecret;
  const fromEnv = readSetting('APP_SECRET');
  if (fromEnv) {
    cachedSecret = fromEnv;
    return fromEnv;
  }
  if (config.serverMode) throw new Error('APP_SECRET is required when DATABASE_URL is set (server mode)');
  const dir = config.dataDir;
  const file = path.join(dir, 'secret');
  try {
    cachedSecret = fs.readFileSync(file, 'utf8').trim();
  } catch {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
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
