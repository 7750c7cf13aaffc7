/**
 * The security headers of every page and API answer, set by proxy.ts. Pages get a
 * Content-Security-Policy whose scripts must carry this request's nonce (Next adds it to its own
 * scripts when it renders the page): no inline script of anyone else's runs.
 */
export type SecurityContext = {
  /** A fresh random value per request, for `script-src 'nonce-…'`. */
  nonce: string;
  /** Served over https (APP_URL is https): HSTS, and insecure requests upgraded. */
  https: boolean;
  /** `next dev`: React's refresh needs eval. */
  development: boolean;
};

export function contentSecurityPolicy({ nonce, https, development }: SecurityContext): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${development ? " 'unsafe-eval'" : ''}`,
    // React and the API reference set style attributes; styles cannot run code.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "worker-src 'self' blob:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    ...(https ? ['upgrade-insecure-requests'] : []),
  ].join('; ');
}

/** An API answer is data, never a document: it may load nothing and be framed by nobody. */
export const API_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";

export function securityHeaders(context: { csp: string; https: boolean }): Record<string, string> {
  return {
    'content-security-policy': context.csp,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'strict-origin-when-cross-origin',
    'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=()',
    'cross-origin-opener-policy': 'same-origin',
    ...(context.https ? { 'strict-transport-security': 'max-age=63072000; includeSubDomains' } : {}),
  };
}
