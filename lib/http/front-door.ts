import { hostPolicyFromEnv, isAllowedHost, securedByHost } from '@/lib/net/host-policy';
import { problemBody, problemResponse } from '@/lib/net/problem';
import { API_CONTENT_SECURITY_POLICY, securityHeaders } from './security-headers';

/**
 * What every answer goes through, whoever serves it: the Host check against DNS rebinding before
 * anything else, and the security headers on the way out. proxy.ts applies it to pages and to the
 * few routes with handlers of their own (next-auth, the dev inbox); the one route wrapper
 * (lib/http/route.ts) applies it to the APIs, which the proxy's matcher leaves out. They are the
 * hot path, where Next's middleware machinery cost more than the wrapper's own work (for a POST it
 * also tees the body stream, in case the middleware reads it). Under `npm start` its server sets
 * the APIs' security headers itself (`apiSecurityHeaders`), and route() only checks the Host.
 */

/**
 * The paths route() guards itself: our API, its health probes, SMSGate's surfaces (the app's,
 * the integrator API at both its paths), the Twilio-compatible API (/2010-04-01/) and the API catalog
 * (/.well-known/api-catalog). Every module under them is built with it, including a
 * catch-all that answers paths naming no operation (test/api/front-door.test.ts).
 */
const GUARDED_BY_ROUTE =
  /^\/(api\/(v1\/|health(\/(live|ready|startup))?$|mobile\/v1\/|3rdparty\/v1\/)|3rdparty\/v1\/|2010-04-01\/|\.well-known\/api-catalog$)/;

export function guardedByRoute(pathname: string): boolean {
  return GUARDED_BY_ROUTE.test(pathname);
}

/**
 * The paths proxy.ts's matcher leaves out, besides Next's build assets: those above, the
 * benchmark's routes (404 unless BENCH=1), whose bare route stands for the framework alone, and
 * Prometheus's /metrics, which checks its clients itself (lib/metrics/access.ts).
 */
export function leftByProxy(pathname: string): boolean {
  return guardedByRoute(pathname) || pathname.startsWith('/api/bench/') || pathname === '/metrics';
}

/** Load balancers and Kubernetes probe the health checks by address, so they answer any Host. */
export const ANY_HOST: ReadonlySet<string> = new Set([
  '/api/health',
  '/api/health/live',
  '/api/health/ready',
  '/api/health/startup',
]);

/**
 * The 421 answer for a request addressed to a name the app is not served under (DNS rebinding, a
 * misrouted proxy), or undefined when the name is one of the app's. `host` is the Host header; a
 * request without one (a test calling a handler, an HTTP/1.0 client: never a browser, so never a
 * rebinding page) is judged by the host of its URL.
 */
export function misdirected(pathname: string, host: string | null, url?: string): Response | undefined {
  if (ANY_HOST.has(pathname)) return undefined;
  const name = host ?? (url ? new URL(url).host : null);
  if (isAllowedHost(name, hostPolicyFromEnv())) return undefined;
  return problemResponse(
    problemBody(
      'MISDIRECTED_REQUEST',
      'This server does not answer for that host name. Set APP_URL (or ALLOWED_HOSTS) to the name it is served under.',
    ),
  );
}

/** Whether the app is served over https (APP_URL): HSTS, and pages upgrade insecure requests. */
export function servedOverHttps(): boolean {
  return hostPolicyFromEnv().appUrl?.startsWith('https://') ?? false;
}

/** Sets the security headers on `headers`; an API answer's policy loads nothing (the default). */
export function secure(headers: Headers, csp: string = API_CONTENT_SECURITY_POLICY, https = servedOverHttps()): void {
  for (const [name, value] of Object.entries(securityHeaders({ csp, https }))) headers.set(name, value);
}

/**
 * An API answer's security headers, for `npm start`'s server to set on the Node response itself
 * (lib/server/start.ts hands them and `guardedByRoute` to scripts/start.mjs). There a header costs
 * one `setHeader`; set on the Response, each went through undici's checks and then Next's copy onto
 * the Node response, 26–36 µs a request, on the hottest paths. The server marks the requests whose
 * answers it has secured, and route() leaves those headers to it (`securedAnswer`).
 */
export function apiSecurityHeaders(https = servedOverHttps()): Array<[string, string]> {
  return Object.entries(securityHeaders({ csp: API_CONTENT_SECURITY_POLICY, https }));
}

/** Sets an API answer's security headers, unless `npm start`'s server has set them already. */
export function securedAnswer(response: Response, req: Request): void {
  if (!securedByHost(req.headers)) secure(response.headers);
}
