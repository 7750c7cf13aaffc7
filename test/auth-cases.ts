import { describe, expect, it } from 'vitest';
import type { RouteHandler } from '@/lib/http/route';
import type { TestAccount } from './fixtures';
import { type CallOptions, call } from './http';

export type AuthCaseOptions = {
  handler: RouteHandler;
  request: Omit<CallOptions, 'apiKey'> | (() => Omit<CallOptions, 'apiKey'>);
  /** Which credential the route takes. */
  accepts: 'account' | 'device' | 'any';
  /** An account of the file's fixtures, with a revoked key of it. */
  fixture: () => { account: TestAccount; revokedKey: string };
};

/**
 * The standard authentication cases, for any route in one line: no key, unknown key, malformed
 * key, revoked key, and the wrong kind of key.
 */
export function describeAuthCases(label: string, options: AuthCaseOptions): void {
  const request = () => (typeof options.request === 'function' ? options.request() : options.request);
  const send = (apiKey?: string) => call(options.handler, { ...request(), apiKey });
  const expectProblem = async (apiKey: string | undefined, status: number, code: string) => {
    const res = await send(apiKey);
    expect(res.status).toBe(status);
    expect(res.contentType).toBe('application/problem+json');
    expect(res.body).toMatchObject({ status, code, type: `/docs/errors#${code}` });
    expect(res.headers.get('x-request-id')).toBeTruthy();
  };

  describe(`${label}: authentication`, () => {
    it('answers 401 UNAUTHENTICATED without a key', () => expectProblem(undefined, 401, 'UNAUTHENTICATED'));
    it('answers 401 UNAUTHENTICATED for a well-formed unknown key', () =>
      expectProblem(`sk_${'A'.repeat(40)}`, 401, 'UNAUTHENTICATED'));
    it('answers 401 UNAUTHENTICATED for a malformed key', () =>
      expectProblem('not a key; DROP TABLE api_keys', 401, 'UNAUTHENTICATED'));
    it('answers 401 UNAUTHENTICATED for a revoked key', () =>
      expectProblem(options.fixture().revokedKey, 401, 'UNAUTHENTICATED'));
    if (options.accepts === 'account') {
      it('answers 403 WRONG_KEY_KIND for a device key', () =>
        expectProblem(options.fixture().account.deviceKey, 403, 'WRONG_KEY_KIND'));
    }
    if (options.accepts === 'device') {
      it('answers 403 WRONG_KEY_KIND for an account key', () =>
        expectProblem(options.fixture().account.apiKey, 403, 'WRONG_KEY_KIND'));
    }
  });
}
