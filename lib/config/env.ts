import path from 'node:path';
import proxyaddr from 'proxy-addr';
import { z } from 'zod';
import { postgresTarget } from '@/db/postgres-url';
import { RETENTION_MODES } from '@/db/schema/retention-modes';

/**
 * Every environment variable the service reads, with how it is read and its default: the one
 * place that knows them (docs/configuration.md lists the same names; test/configuration-doc.test.ts holds them together). Each reader
 * throws a message completing "<NAME> …" when the value is unusable; messages never repeat a
 * value that may hold a password (DATABASE_URL, SMTP_URL) or the secret itself.
 */
type Reader<T> = (raw: string) => T;

function variable<T>(read: Reader<T>) {
  return z
    .string()
    .optional()
    .transform((raw, ctx): T | undefined => {
      if (raw === undefined) return undefined;
      try {
        return read(raw);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: (error as Error).message });
        return z.NEVER;
      }
    });
}

const text: Reader<string> = (raw) => raw;

const secondsList: Reader<number[]> = (raw) => {
  const parts = raw.split(',').map((part) => part.trim());
  if (parts.length > 10 || parts.some((part) => !/^\d+$/.test(part) || Number(part) > 86_400)) {
    throw new Error(`must be 1 to 10 comma-separated whole seconds (each at most 86400), got "${raw}".`);
  }
  return parts.map(Number);
};

const wholeNumber =
  (min = 0): Reader<number> =>
  (raw) => {
    const value = Number(raw.trim());
    if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(value)) {
      throw new Error(`must be a non-negative integer, got "${raw}".`);
    }
    if (value < min) throw new Error(`must be at least ${min}, got "${raw}".`);
    return value;
  };

const oneOf =
  <const T extends string>(values: readonly T[]): Reader<T> =>
  (raw) => {
    const value = raw.trim().toLowerCase();
    if (!values.includes(value as T)) throw new Error(`must be one of ${values.join(', ')}, got "${raw}".`);
    return value as T;
  };

const percent: Reader<number> = (raw) => {
  const value = wholeNumber(1)(raw);
  if (value > 100) throw new Error(`must be at most 100, got "${raw}".`);
  return value;
};

const flag: Reader<boolean> = (raw) => oneOf(['1', '0'])(raw) === '1';

const httpUrl: Reader<string> = (raw) => {
  if (!URL.canParse(raw) || !/^https?:$/.test(new URL(raw).protocol)) {
    throw new Error(`must be an http(s) URL, got "${raw}".`);
  }
  return raw;
};

const postgresUrl: Reader<string> = (raw) => {
  try {
    postgresTarget(raw);
  } catch {
    throw new Error('must be a postgres:// or postgresql:// URL (postgres://user:password@host:5432/database).');
  }
  return raw;
};

const smtpUrl: Reader<string> = (raw) => {
  if (!URL.canParse(raw) || !/^smtps?:$/.test(new URL(raw).protocol)) {
    throw new Error('must be an smtp:// or smtps:// URL (smtps://user:pass@smtp.example.com:465).');
  }
  return raw;
};

const secret: Reader<string> = (raw) => {
  if (raw.length < 32) throw new Error('must be at least 32 characters.');
  return raw;
};

const email: Reader<string> = (raw) => {
  const value = raw.trim().toLowerCase();
  if (!z.email().safeParse(value).success) throw new Error(`must be an email address, got "${raw}".`);
  return value;
};

const port: Reader<number> = (raw) => {
  const value = wholeNumber(1)(raw);
  if (value > 65_535) throw new Error(`must be a port number (1-65535), got "${raw}".`);
  return value;
};

/** Mail domains, comma-separated: `sms.example.com,sms.example.org`. */
const domainList: Reader<string[]> = (raw) => {
  const domains = raw.split(',').map((part) => part.trim().toLowerCase());
  if (
    domains.length > 20 ||
    domains.some((domain) => !/^(?=.{1,253}$)([a-z0-9-]{1,63}\.)*[a-z0-9-]{1,63}$/.test(domain))
  ) {
    throw new Error(`must be 1 to 20 comma-separated domain names, got "${raw}".`);
  }
  return domains;
};

export type TrustProxy = (address: string, hop: number) => boolean;

/**
 * Which hops may say who the client is: a number trusts that many hops next to the server; anything
 * else is a comma list of addresses, CIDRs or proxy-addr's names (`loopback`, `linklocal`, `uniquelocal`).
 */
const trustProxy: Reader<TrustProxy> = (raw) => {
  const trimmed = raw.trim();
  if (/^\d+$/.test(trimmed)) {
    const hops = Number(trimmed);
    return (_address, hop) => hop < hops;
  }
  try {
    return proxyaddr.compile(trimmed.split(',').map((entry) => entry.trim()));
  } catch (error) {
    throw new Error(`"${raw}" is not a hop count or a list of addresses/CIDRs: ${(error as Error).message}`);
  }
};

export const envSchema = z.object({
  DATABASE_URL: variable(postgresUrl),
  DATABASE_POOL_SIZE: variable(wholeNumber(1)).default(10),
  /** Connections of their own for the hot requests, sent in batches (db/client.ts, lib/transactions.ts); 0: each alone on the pool. */
  DATABASE_PIPELINE_SIZE: variable(wholeNumber(0)).default(2),
  /** The bounds of db/client.ts `DatabaseLimits` (defaults: DEFAULT_DATABASE_LIMITS there). */
  DATABASE_CONNECT_TIMEOUT_S: variable(wholeNumber(1)).default(5),
  DATABASE_STATEMENT_TIMEOUT_MS: variable(wholeNumber(100)).default(10_000),
  DATABASE_ACQUIRE_TIMEOUT_MS: variable(wholeNumber(100)).default(5_000),
  DATABASE_MAX_WAITING: variable(wholeNumber(1)).default(512),
  /** The longest a message search's statement runs before it answers 422 SEARCH_TOO_BROAD (lib/messages/list.ts). */
  SEARCH_BUDGET_MS: variable(wholeNumber(1)).default(2_000),
  /** A request's one bound for all its waits on a server database together (db/deadline.ts). */
  REQUEST_DEADLINE_MS: variable(wholeNumber(100)).default(10_000),
  /** Seconds after which a message handed to a phone and not reported is handed out again (lib/messages/claim.ts). */
  CLAIM_REDELIVER_AFTER_S: variable(wholeNumber(1)).default(120),
  DATA_DIR: variable(text).default(() => path.join(process.cwd(), '.data')),
  APP_SECRET: variable(secret),
  APP_URL: variable(httpUrl),
  NEXTAUTH_URL: variable(httpUrl),
  /** Read by scripts/start.mjs (plain JS); checked here so that a bad port is named at start. */
  PORT: variable(port),
  /** The address scripts/start.mjs listens on (127.0.0.1 unless set). */
  HOST: variable(text),
  // Read by the shell of package.json's `start` (`node --max-old-space-size=${HEAP_MB:-256}`), where Node
  // refuses a value that is not a number; listed here with the others, and checked (64 MB at least).
  HEAP_MB: variable(wholeNumber(64)).default(256),
  // The same shell's `--max-semi-space-size`, V8's young generation: 64 MB with DATABASE_URL in the
  // environment, else 8 MB (docs/performance.md: the embedded database's memory matters more there).
  SEMI_SPACE_MB: variable(wholeNumber(1)),
  // Web processes of `npm start` (scripts/serve.mjs webConcurrency, which reads it there first: one
  // per core with DATABASE_URL, one with the embedded database); checked here with the others.
  WEB_CONCURRENCY: variable(wholeNumber(1)),
  TRUST_PROXY: variable(trustProxy),
  ALLOWED_HOSTS: variable(text),
  /** Set by scripts/start.mjs for its own process. */
  SIMGATE_PEER_TOKEN: variable(text),
  LOG_LEVEL: variable(oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])),
  /** BENCH=1 serves the benchmark's bare route (app/api/bench/bare). */
  BENCH: variable(flag).default(false),
  BACKGROUND: variable(oneOf(['on', 'off'])).default('on'),
  STARTER_CREDITS: variable(wholeNumber()).default(100),
  PLAN_FREE_PHONES: variable(wholeNumber()).default(3),
  PLAN_FREE_GROUPS: variable(wholeNumber()).default(3),
  PLAN_PRO_PHONES: variable(wholeNumber()).default(50),
  PLAN_PRO_GROUPS: variable(wholeNumber()).default(50),
  /** Webhooks an account manages (its own and SMSGate's integrator API's), per plan. */
  PLAN_FREE_WEBHOOKS: variable(wholeNumber()).default(10),
  PLAN_PRO_WEBHOOKS: variable(wholeNumber()).default(50),
  /** Actions of an account's inbound rules, all rules together, per plan (lib/automation/rules.ts). */
  PLAN_FREE_RULE_ACTIONS: variable(wholeNumber()).default(100),
  PLAN_PRO_RULE_ACTIONS: variable(wholeNumber()).default(500),
  VERIFICATION_RATE_LIMIT: variable(wholeNumber()).default(5),
  VERIFICATION_RATE_WINDOW_S: variable(wholeNumber()).default(3600),
  REGISTER_IP_RATE_LIMIT: variable(wholeNumber()).default(100),
  PAIRING_RATE_LIMIT: variable(wholeNumber()).default(10),
  /** Wrong pairing codes tried on the whole instance per rolling minute before every sign-in by code answers 429; 0: no cap. */
  PAIRING_FAILURES_PER_MINUTE: variable(wholeNumber()).default(30),
  /** Wrong pairing codes tried on the instance since a code was issued after which that code is void. */
  PAIRING_CODE_MAX_FAILURES: variable(wholeNumber(1)).default(50),
  HEARTBEAT_TIMEOUT_S: variable(wholeNumber()).default(300),
  HEARTBEAT_SWEEP_INTERVAL_S: variable(wholeNumber(1)).default(30),
  MESSAGE_EXPIRY_SWEEP_S: variable(wholeNumber(1)).default(30),
  /** Waits before each automatic retry of a failed message, in seconds: the n-th retry waits the n-th (the last repeats). */
  RETRY_BACKOFF_SECONDS: variable(secondsList).default([60, 300]),
  /** A phone that reports Android's RESULT_ERROR_LIMIT_EXCEEDED is paused this long (doubled on a repeat within the hour, at most 4 h). */
  LIMIT_PAUSE_SECONDS: variable(wholeNumber(1)).default(900),
  /** The most queued messages an account may hold (its `max_queued_messages` setting is capped by this). */
  ACCOUNT_MAX_QUEUED: variable(wholeNumber(1)).default(100_000),
  /** Automatic SMS (rule actions, HELP, webhook and TwiML replies, opt-out confirmations) and forward emails per counterpart number, per account, in any hour. */
  AUTO_REPLY_LIMIT: variable(wholeNumber()).default(3),
  /** Automatic SMS an account sends in any hour, all counterparts together. */
  AUTO_SMS_ACCOUNT_HOURLY_LIMIT: variable(wholeNumber()).default(100),
  /** 1: automatic SMS may go to premium-rate and shared-cost numbers (lib/messages/gate.ts). */
  AUTO_SMS_PREMIUM_RATE: variable(flag).default(false),
  /** SIM-check resends per phone in any hour; past it 429. 0: no limit. */
  SIM_CHECK_RESENDS_PER_HOUR: variable(wholeNumber()).default(3),
  /** Distinct status-callback URLs (status_callback_url, Twilio's StatusCallback) an account holds live at once; a send with one more answers 400 naming the field. */
  STATUS_CALLBACK_URLS_PER_ACCOUNT: variable(wholeNumber(1)).default(1000),
  /** Forward-to-email actions per account in any hour; past it they are skipped (`email_limit_reached`). */
  AUTO_EMAIL_ACCOUNT_HOURLY_LIMIT: variable(wholeNumber()).default(50),
  /** Rule actions one inbound message runs; the ones past it are recorded as skipped (`step_budget_reached`). */
  AUTOMATION_STEPS_PER_MESSAGE: variable(wholeNumber(1)).default(20),
  /** Seconds between passes that raise and resolve account alerts (lib/alerts). */
  ALERT_EVALUATION_INTERVAL_S: variable(wholeNumber(1)).default(60),
  /** Alert emails (raised and resolved) per account in any hour; past it the alert still opens, unmailed. */
  ALERT_EMAILS_PER_HOUR: variable(wholeNumber()).default(10),
  API_KEY_RATE_LIMIT: variable(wholeNumber()).default(200),
  KEY_CACHE_TTL_MS: variable(wholeNumber()).default(5000),
  /** Open SMSGate app event streams (SSE) of one account in one instance; one more answers 429. */
  SSE_STREAMS_PER_ACCOUNT: variable(wholeNumber(1)).default(200),
  /** Open SMSGate app event streams (SSE) in one instance; one more answers 503. */
  SSE_STREAMS_PER_INSTANCE: variable(wholeNumber(1)).default(1000),
  /** Live access tokens of SMSGate's integrator API one account may hold; one more answers 429. */
  SMSGATE_TOKENS_PER_ACCOUNT: variable(wholeNumber(1)).default(1000),
  /** Waiting claims (`?wait=`) of one account in one instance; one more answers 429. */
  WAITING_CLAIMS_PER_ACCOUNT: variable(wholeNumber(1)).default(200),
  /** Waiting claims (`?wait=`) in one instance; one more answers 503. */
  WAITING_CLAIMS_PER_INSTANCE: variable(wholeNumber(1)).default(1000),
  /** Phone connections (claims, event streams) an instance opens a second, with bursts of as many; past it 429. 0: no limit. */
  PHONE_CONNECTS_PER_S: variable(wholeNumber()).default(500),
  VERIFICATION_SENDER_PHONE: variable((raw) => raw.trim()),
  VERIFICATION_SENDER_EMAIL: variable(email),
  SMTP_URL: variable(smtpUrl),
  MAIL_FROM: variable(text).default('Simgate <no-reply@simgate.local>'),
  DEV_INBOX: variable(flag).default(false),
  /** The MCP server at /mcp (docs/doors.md): off unless set; off, /mcp answers 404. */
  MCP_ENABLED: variable(flag).default(false),
  /** Email to SMS (docs/doors.md): the port its SMTP server listens on (on HOST); unset, it is off. */
  SMTP_PORT: variable(port),
  /** PEM files of the certificate and key the SMTP server offers with STARTTLS; unset, no STARTTLS. */
  SMTP_TLS_CERT: variable(text),
  SMTP_TLS_KEY: variable(text),
  /** The domains whose addresses become SMS (`<number>@<domain>`); unset, the host of APP_URL. */
  SMTP_DOMAINS: variable(domainList),
  /** 1: mail from an address an account confirmed is sent without SMTP AUTH (weaker: a From is easily forged). */
  SMTP_ALLOW_CONFIRMED_SENDERS: variable(flag).default(false),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: variable(flag).default(false),
  /**
   * Webhook posts one account may have in flight at once, across every worker: a tenant whose
   * receivers are slow holds at most this many of the workers' slots while the others' go out.
   */
  WEBHOOK_ACCOUNT_IN_FLIGHT: variable(wholeNumber(1)).default(5),
  NODE_EXTRA_CA_CERTS: variable(text),
  /** Days a final message keeps its content (lib/retention); unset: forever. */
  RETENTION_MESSAGE_CONTENT_DAYS: variable(wholeNumber(1)),
  /** What happens to content past those days: emptied (`delete`) or replaced by its SHA-256 (`hash`). */
  RETENTION_MESSAGE_CONTENT_MODE: variable(oneOf(RETENTION_MODES)).default('hash'),
  /** Also replace the counterpart number of a purged message by its HMAC-SHA256 (key from APP_SECRET). */
  RETENTION_HASH_COUNTERPART: variable(flag).default(false),
  /** Days finished webhook deliveries (with their attempts) and the events behind them are kept. */
  RETENTION_WEBHOOK_DELIVERIES_DAYS: variable(wholeNumber(1)).default(30),
  RETENTION_HEARTBEATS_DAYS: variable(wholeNumber(1)).default(30),
  RETENTION_AUDIT_DAYS: variable(wholeNumber(1)).default(365),
  /** Seconds between two retention sweeps. */
  RETENTION_SWEEP_INTERVAL_S: variable(wholeNumber(1)).default(3600),
  /**
   * The share of a sweep's time its statements may take, in percent: after each batch it pauses so
   * that the sends sharing the database's cores keep their speed (100: batches back to back).
   */
  RETENTION_SWEEP_DUTY_PERCENT: variable(percent).default(10),
  /** A Bearer token that lets a client read /metrics from anywhere (lib/metrics/access.ts); unset, only loopback clients may. */
  METRICS_TOKEN: variable(secret),
  /** `npm run worker` serves /metrics on this port (on HOST); unset, the worker serves none. */
  METRICS_PORT: variable(port),
  /** The SMPP 3.4 server listens on this port (on HOST) in each process that has it; unset, no SMPP (lib/protocols/smpp). */
  SMPP_PORT: variable(port),
  /** SMPP over TLS on this port, with SMPP_TLS_CERT and SMPP_TLS_KEY (PEM files). */
  SMPP_TLS_PORT: variable(port),
  SMPP_TLS_CERT: variable(text),
  SMPP_TLS_KEY: variable(text),
  /** Requests one bind may have outstanding (submit_sm not yet answered); past it ESME_RTHROTTLED. */
  SMPP_WINDOW: variable(wholeNumber(1)).default(10),
  /** SMPP binds an account may hold at once, across every instance, on each plan. */
  PLAN_FREE_SMPP_BINDS: variable(wholeNumber()).default(2),
  PLAN_PRO_SMPP_BINDS: variable(wholeNumber()).default(10),
});

export type Settings = z.output<typeof envSchema>;
export type SettingName = keyof Settings;
type Env = Record<string, string | undefined>;

/** An empty or blank variable (`FOO=` in a compose file) counts as unset. */
function rawValue(env: Env, name: SettingName): string | undefined {
  const raw = env[name];
  return raw === undefined || raw.trim() === '' ? undefined : raw;
}

const readCache = new Map<SettingName, { raw: string | undefined; value: unknown }>();

/** The environment as the server started with it, once `freezeSettings()` has run. */
let frozen: Env | undefined;

/**
 * From now on settings come from the environment as it is now, not as it is at each read: the
 * server calls this once it has started (lib/server/start.ts). Its environment does not change
 * after that, and a request read a dozen variables (Host check, security headers, peer token,
 * rate limit), each a call into the process's environment block.
 */
export function freezeSettings(env: Env = process.env): void {
  frozen = { ...env };
}

/** Back to reading the environment at each call (tests of freezeSettings). */
export function thawSettings(): void {
  frozen = undefined;
}

/**
 * One variable as the schema reads it, at the moment of the call (tests change the environment
 * between calls), or as the server started with it once frozen; an unusable value throws its
 * problem.
 */
export function readSetting<K extends SettingName>(name: K, env: Env = frozen ?? process.env): Settings[K] {
  const raw = rawValue(env, name);
  const cached = readCache.get(name);
  if (cached && cached.raw === raw) return cached.value as Settings[K];
  const result = envSchema.shape[name].safeParse(raw);
  if (!result.success) throw new Error(`${name} ${result.error.issues[0]?.message}`);
  readCache.set(name, { raw, value: result.data });
  return result.data as Settings[K];
}

/** Rules between variables: server mode needs more. */
function crossProblems(env: Env): string[] {
  const isSet = (name: SettingName) => rawValue(env, name) !== undefined;
  const problems: string[] = [];
  if (!isSet('DATABASE_URL') && Number(rawValue(env, 'WEB_CONCURRENCY') ?? 1) > 1) {
    problems.push('WEB_CONCURRENCY above 1 needs DATABASE_URL: the embedded database is one process’s own.');
  }
  if (isSet('DATABASE_URL')) {
    if (!isSet('APP_SECRET')) problems.push('APP_SECRET is required when DATABASE_URL is set (server mode).');
    if (!isSet('APP_URL') && !isSet('NEXTAUTH_URL')) {
      problems.push(
        'APP_URL is required in server mode: the public origin (https://sms.example.com) that sign-in links, session cookies, the Host check and the SMSGate app rely on.',
      );
    }
  }
  if (isSet('SMTP_TLS_CERT') !== isSet('SMTP_TLS_KEY')) {
    problems.push('SMTP_TLS_CERT and SMTP_TLS_KEY go together: the certificate and its key (PEM files).');
  }
  if (isSet('SMTP_PORT') && !isSet('SMTP_DOMAINS') && !isSet('APP_URL') && !isSet('NEXTAUTH_URL')) {
    problems.push('SMTP_DOMAINS (or APP_URL, whose host it defaults to) is required with SMTP_PORT.');
  }
  if (isSet('VERIFICATION_SENDER_PHONE') && !isSet('VERIFICATION_SENDER_EMAIL')) {
    problems.push(
      'VERIFICATION_SENDER_EMAIL is required with VERIFICATION_SENDER_PHONE: the email of the operator account that owns that phone.',
    );
  }
  if (isSet('SMPP_TLS_PORT') && !(isSet('SMPP_TLS_CERT') && isSet('SMPP_TLS_KEY'))) {
    problems.push(
      'SMPP_TLS_CERT and SMPP_TLS_KEY are required with SMPP_TLS_PORT: the PEM files of its certificate and key.',
    );
  }
  return problems;
}

/** Every problem of the configuration in `env`, one sentence each; empty when the service can run. */
export function configProblems(env: Env = process.env): string[] {
  const problems: string[] = [];
  for (const [name, schema] of Object.entries(envSchema.shape)) {
    const result = schema.safeParse(rawValue(env, name as SettingName));
    if (!result.success) problems.push(...result.error.issues.map((issue) => `${name} ${issue.message}`));
  }
  return [...problems, ...crossProblems(env)];
}
