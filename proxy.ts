import { randomBytes } from 'node:crypto';
import { type NextRequest, NextResponse } from 'next/server';
import { hostPolicyFromEnv, isAllowedHost, isLoopbackClient } from '@/lib/http/host';
import { problemBody, problemResponse } from '@/lib/http/problem';
import { API_CONTENT_SECURITY_POLICY, contentSecurityPolicy, securityHeaders } from '@/lib/http/security-headers';

const DEV_INBOX = /^\/(api\/)?dev\/inbox(\/|$)/;

/**
 * Runs before every route and page: a request addressed to a name the app is not served under
 * (DNS rebinding, a misrouted proxy) is refused with 421 before anything else happens, and the
 * dev inbox (page and API) is not found for clients on other machines. The health check answers
 * any name, for load balancers that probe by address. Every answer carries the security headers
 * (lib/http/security-headers.ts), pages a nonce-based Content-Security-Policy.
 */
export function proxy(request: NextRequest): Response {
  const { pathname } = request.nextUrl;
  const policy = hostPolicyFromEnv();
  const https = policy.appUrl?.startsWith('https://') ?? false;
  // Pages get a fresh nonce, handed to Next with the request (it stamps the page's scripts with
  // it); API answers, the hot path, a fixed policy and no request rewrite.
  const page = !pathname.startsWith('/api/') && !pathname.startsWith('/3rdparty/');
  const csp = page
    ? contentSecurityPolicy({
        nonce: randomBytes(16).toString('base64'),
        https,
        development: process.env.NODE_ENV === 'development',
      })
    : API_CONTENT_SECURITY_POLICY;
  let response: Response;
  if (pathname !== '/api/health' && !isAllowedHost(request.headers.get('host'), policy)) {
    response = misdirected();
  } else if (DEV_INBOX.test(pathname) && !isLoopbackClient(request.headers, request.url)) {
    response = problemResponse(problemBody('NOT_FOUND', 'Page not found.'));
  } else if (page) {
    const forwarded = new Headers(request.headers);
    forwarded.set('content-security-policy', csp);
    response = NextResponse.next({ request: { headers: forwarded } });
  } else {
    response = NextResponse.next();
  }
  for (const [name, value] of Object.entries(securityHeaders({ csp, https }))) response.headers.set(name, value);
  return response;
}

// Build assets need no check and no headers of ours.
export const config = { matcher: ['/((?!_next/static|_next/image|favicon.ico).*)'] };

function misdirected(): Response {
  return problemResponse(
    problemBody(
      'MISDIRECTED_REQUEST',
      'This server does not answer for that host name. Set APP_URL (or ALLOWED_HOSTS) to the name it is served under.',
    ),
  );
}
