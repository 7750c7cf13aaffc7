import { NextRequest } from 'next/server';
import { afterEach, describe, expect, it } from 'vitest';
import { proxy } from '@/proxy';

afterEach(() => {
  delete process.env.APP_URL;
});

function answer(pathname: string, host = 'localhost:3000') {
  return proxy(new NextRequest(`http://${host}${pathname}`, { headers: { host } }));
}

const nonceOf = (csp: string | null) => /'nonce-([^']+)'/.exec(csp ?? '')?.[1];

describe('security headers on every page and API answer', () => {
  it('sends a nonce-based CSP that refuses inline scripts and framing, and a new nonce per request', () => {
    const first = answer('/dashboard').headers.get('content-security-policy');
    const second = answer('/dashboard').headers.get('content-security-policy');
    expect(first).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]{16,}' 'strict-dynamic'/);
    expect(first).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    expect(first).toContain("frame-ancestors 'none'");
    expect(first).toContain("object-src 'none'");
    expect(nonceOf(first)).not.toBe(nonceOf(second));
  });

  it('hands the page’s nonce to Next with the request, so its own scripts carry it', () => {
    const res = answer('/sign-in');
    const forwarded = res.headers.get('x-middleware-request-content-security-policy');
    expect(nonceOf(forwarded)).toBe(nonceOf(res.headers.get('content-security-policy')));
  });

  it('sets nosniff, the referrer and permissions policies and no framing on API answers and refusals too', () => {
    for (const res of [answer('/api/auth/session'), answer('/api/health'), answer('/sign-in', 'attacker.example')]) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
      expect(res.headers.get('permissions-policy')).toContain('camera=()');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    }
  });

  it('gives API answers a fixed policy that loads nothing, without rewriting the request', () => {
    const res = answer('/api/auth/session');
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(res.headers.get('x-middleware-request-content-security-policy')).toBeNull();
  });

  it('adds HSTS and upgrades insecure requests only when served over https (APP_URL)', () => {
    expect(answer('/sign-in').headers.get('strict-transport-security')).toBeNull();
    expect(answer('/sign-in').headers.get('content-security-policy')).not.toContain('upgrade-insecure-requests');
    process.env.APP_URL = 'https://sms.example.com';
    const res = answer('/sign-in', 'sms.example.com');
    expect(res.headers.get('strict-transport-security')).toBe('max-age=63072000; includeSubDomains');
    expect(res.headers.get('content-security-policy')).toContain('upgrade-insecure-requests');
  });
});
