import { describe, expect, it } from 'vitest';
import { configProblems } from '@/lib/config';

const problemsOf = (env: Record<string, string>) => configProblems(env);

const secret = 'x'.repeat(48);

describe('settings a server-mode instance refuses to start without', () => {
  it('asks nothing of local mode', () => {
    expect(problemsOf({})).toEqual([]);
  });

  it('requires APP_URL in server mode (next-auth would assume http://localhost:3000)', () => {
    const problems = problemsOf({ DATABASE_URL: 'postgres://db/simgate', APP_SECRET: secret });
    expect(problems).toEqual([expect.stringContaining('APP_URL is required')]);
  });

  it('lists every problem at once', () => {
    const problems = problemsOf({
      DATABASE_URL: 'postgres://db/simgate',
      APP_SECRET: 'short',
      APP_URL: 'ftp://x',
    });
    expect(problems).toHaveLength(2);
    expect(problems.join('\n')).toMatch(/APP_SECRET must be at least 32/);
    expect(problems.join('\n')).toMatch(/APP_URL must be an http\(s\) URL/);
  });

  it('refuses a TRUST_PROXY that is neither a hop count nor addresses, in either mode', () => {
    expect(problemsOf({ TRUST_PROXY: 'banana' })).toEqual([expect.stringContaining('TRUST_PROXY "banana"')]);
    expect(problemsOf({ TRUST_PROXY: 'loopback, 10.0.0.0/8' })).toEqual([]);
    expect(problemsOf({ TRUST_PROXY: '2' })).toEqual([]);
  });

  it('accepts a complete server-mode configuration', () => {
    expect(
      problemsOf({
        DATABASE_URL: 'postgres://db/simgate',
        APP_SECRET: secret,
        APP_URL: 'https://sms.example.com',
      }),
    ).toEqual([]);
  });
});
