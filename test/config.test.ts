import { afterEach, describe, expect, it, vi } from 'vitest';
import { assertConfig, config, configProblems } from '@/lib/config';
import { freezeSettings, thawSettings } from '@/lib/config/env';

const secret = 'x'.repeat(48);
const serverMode = { DATABASE_URL: 'postgres://db/simgate', APP_SECRET: secret, APP_URL: 'https://sms.example.com' };

afterEach(() => {
  thawSettings();
  vi.unstubAllEnvs();
});

describe('the configuration schema, checked once at start', () => {
  it('accepts an empty local-mode environment and a complete server-mode one', () => {
    expect(configProblems({})).toEqual([]);
    expect(configProblems(serverMode)).toEqual([]);
    expect(
      configProblems({ ...serverMode, DATABASE_URL: 'postgres://postgres@/simgate?host=/var/run/postgresql' }),
    ).toEqual([]);
    expect(
      configProblems({ TRUST_PROXY: 'loopback, 10.0.0.0/8', BACKGROUND: 'off', PORT: '8080', DEV_INBOX: '1' }),
    ).toEqual([]);
  });

  it('counts an empty variable as unset', () => {
    expect(configProblems({ API_KEY_RATE_LIMIT: '', DATABASE_URL: ' ' })).toEqual([]);
  });

  const badValues: Array<[Record<string, string>, RegExp]> = [
    [{ API_KEY_RATE_LIMIT: 'abc' }, /^API_KEY_RATE_LIMIT must be a non-negative integer, got "abc"/],
    [{ STARTER_CREDITS: '-1' }, /^STARTER_CREDITS must be a non-negative integer/],
    [{ HEARTBEAT_SWEEP_INTERVAL_S: '0' }, /^HEARTBEAT_SWEEP_INTERVAL_S must be at least 1/],
    [{ DATABASE_POOL_SIZE: '2.5' }, /^DATABASE_POOL_SIZE must be a non-negative integer/],
    [
      { ...serverMode, DATABASE_URL: 'db.example.com:5432' },
      /^DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL/,
    ],
    [{ ...serverMode, DATABASE_URL: 'mysql://db/simgate' }, /^DATABASE_URL must be a postgres:\/\//],
    [{ APP_SECRET: 'short' }, /^APP_SECRET must be at least 32 characters/],
    [{ APP_URL: 'ftp://x' }, /^APP_URL must be an http\(s\) URL, got "ftp:\/\/x"/],
    [{ TRUST_PROXY: 'banana' }, /^TRUST_PROXY "banana" is not a hop count or a list of addresses/],
    [{ BACKGROUND: 'sometimes' }, /^BACKGROUND must be one of on, off, got "sometimes"/],
    [{ DEV_INBOX: 'yes' }, /^DEV_INBOX must be one of 1, 0/],
    [{ LOG_LEVEL: 'loud' }, /^LOG_LEVEL must be one of fatal, error/],
    [{ PORT: '70000' }, /^PORT must be a port number/],
    [{ SMTP_URL: 'mail.example.com' }, /^SMTP_URL must be an smtp:\/\/ or smtps:\/\/ URL/],
    [{ VERIFICATION_SENDER_EMAIL: 'nobody' }, /^VERIFICATION_SENDER_EMAIL must be an email address/],
    [
      { VERIFICATION_SENDER_PHONE: '+14155550100' },
      /^VERIFICATION_SENDER_EMAIL is required with VERIFICATION_SENDER_PHONE/,
    ],
    [{ SMPP_PORT: '0' }, /^SMPP_PORT must be at least 1/],
    [{ SMPP_TLS_PORT: '3550', SMPP_TLS_CERT: '/etc/ssl/smpp.pem' }, /^SMPP_TLS_CERT and SMPP_TLS_KEY are required/],
    [
      { DATABASE_URL: 'postgres://db/simgate', APP_URL: 'https://sms.example.com' },
      /^APP_SECRET is required when DATABASE_URL is set/,
    ],
    [{ DATABASE_URL: 'postgres://db/simgate', APP_SECRET: secret }, /^APP_URL is required in server mode/],
  ];

  it.each(badValues)('refuses %j', (env, problem) => {
    const problems = configProblems(env);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(problem);
  });

  it('lists every problem in one message', () => {
    const env = {
      API_KEY_RATE_LIMIT: 'abc',
      DATABASE_URL: 'db.example.com:5432',
      APP_SECRET: 'short',
      TRUST_PROXY: 'banana',
      BACKGROUND: 'sometimes',
      PORT: '0',
    };
    let message = '';
    try {
      assertConfig(env);
    } catch (error) {
      message = (error as Error).message;
    }
    const [heading, ...lines] = message.split('\n');
    expect(heading).toBe('Simgate cannot start:');
    const expected = [
      /^- API_KEY_RATE_LIMIT must be a non-negative integer, got "abc"\.$/,
      /^- DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL/,
      /^- APP_SECRET must be at least 32 characters\.$/,
      /^- PORT must be at least 1, got "0"\.$/,
      /^- TRUST_PROXY "banana" is not a hop count or a list of addresses\/CIDRs/,
      /^- BACKGROUND must be one of on, off, got "sometimes"\.$/,
      /^- APP_URL is required in server mode: /,
    ];
    expect(lines).toHaveLength(expected.length);
    for (const line of expected) expect(lines).toContainEqual(expect.stringMatching(line));
  });

  it('never repeats a secret or a database password in a problem', () => {
    const message = configProblems({
      APP_SECRET: 'hunter2',
      DATABASE_URL: 'mysql://u:hunter2@db/x',
      SMTP_URL: 'x:hunter2',
    }).join('\n');
    expect(message).not.toContain('hunter2');
  });
});

describe('settings read at use', () => {
  it('follow the environment from one call to the next', () => {
    vi.stubEnv('API_KEY_RATE_LIMIT', '7');
    expect(config.apiKeyRateLimit).toBe(7);
    vi.stubEnv('API_KEY_RATE_LIMIT', '');
    expect(config.apiKeyRateLimit).toBe(200);
    vi.stubEnv('BACKGROUND', 'off');
    expect(config.backgroundWork).toBe(false);
    vi.stubEnv('BACKGROUND', '');
    expect(config.backgroundWork).toBe(true);
  });

  it('are, once the server froze them at its start, the environment of that moment', () => {
    vi.stubEnv('API_KEY_RATE_LIMIT', '7');
    freezeSettings();
    vi.stubEnv('API_KEY_RATE_LIMIT', '9');
    expect(config.apiKeyRateLimit).toBe(7);
    thawSettings();
    expect(config.apiKeyRateLimit).toBe(9);
  });

  it('throw the problem of an unusable value, naming the variable', () => {
    vi.stubEnv('KEY_CACHE_TTL_MS', 'soon');
    expect(() => config.keyCacheTtlMs).toThrowError('KEY_CACHE_TTL_MS must be a non-negative integer, got "soon".');
  });

  it('say where the database is: a server with its pool, or the embedded folder', () => {
    vi.stubEnv('DATABASE_URL', 'postgres://db/simgate?sslmode=require');
    vi.stubEnv('DATABASE_POOL_SIZE', '4');
    vi.stubEnv('DATABASE_STATEMENT_TIMEOUT_MS', '7000');
    expect(config.database).toEqual({
      url: 'postgres://db/simgate?sslmode=require',
      poolSize: 4,
      pipelineSize: 2,
      limits: {
        acquireTimeoutMs: 5000,
        connectTimeoutS: 5,
        maxWaiting: 512,
        statementTimeoutMs: 7000,
        requestDeadlineMs: 10_000,
      },
    });
    vi.stubEnv('DATABASE_URL', '');
    vi.stubEnv('DATA_DIR', '/srv/simgate');
    expect(config.database).toEqual({ dataDir: '/srv/simgate' });
  });
});
