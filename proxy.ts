import { randomBytes } from 'node:crypto';
import { type NextRequest, NextResponse } from 'next/server';
import { misdirected, secure, servedOverHttps } from '@/lib/http/front-door';
import { API_CONTENT_SECURITY_POLICY, contentSecurityPolicy } from '@/lib/http/security-headers';
import { isLoopbackClient } from '@/lib/net/host-policy';
import { problemBody, problemResponse } from '@/lib/net/problem';

const DEV_INBOX = /^\/(api\/)?dev\/inbox(\/|$)/;

/**
 * Runs before every page and route but the APIs' (the matcher below leaves them to the route
 * wrapper, which does the same; lib/http/front-door.ts). A request addressed to a name the app is
 * not served under (DNS rebinding, a misrouted proxy) is refused with 421 before anything else
 * happens, and the dev inbox (page and API) is not found for clients on other machines. Every
 * answer carries the security headers (lib/http/security-headers.ts), pages a nonce-based
 * Content-Security-Policy.
 */
export function proxy(request: NextRequest): Response {
  const { pathname } = request.nextUrl;
  const https = servedOverHttps();
  // Pages get a fresh nonce, handed to Next with the request (it stamps the page's scripts with
  // it); API answers, the hot path, a fixed policy and no request rewrite.
  const page =
    !pathname.startsWith('/api/') &&
    !pathname.startsWith('/3rdparty/') &&
    !pathname.startsWith('/2010-04-01/') &&
    pathname !== '/mcp' &&
    pathname !== '/.well-known/api-catalog';
  const csp = page
    ? contentSecurityPolicy({
        nonce: randomBytes(16).toString('base64'),
        https,
        development: process.env.NODE_ENV === 'development',
      })
    : API_CONTENT_SECURITY_POLICY;
  const response =
    misdirected(pathname, request.headers.get('host')) ??
    (DEV_INBOX.test(pathname) && !isLoopbackClient(request.headers, request.url)
      ? problemResponse(problemBody('NOT_FOUND', 'Page not found.'))
      : passOn(request, page ? csp : undefined));
  secure(response.headers, csp, https);
  return response;
}

/** On to the page or route; a page's request carries its policy, whose nonce Next stamps on its scripts. */
function passOn(request: NextRequest, pageCsp: string | undefined): Response {
  if (!pageCsp) return NextResponse.next();
  const forwarded = new Headers(request.headers);
  forwarded.set('content-security-policy', pageCsp);
  return NextResponse.next({ request: { headers: forwarded } });
}

// Build assets need no check and no headers of ours. The APIs (ours and SMSGate's) answer through
// route(), which checks and sets them itself, the benchmark's routes stand for the framework
// alone, and /metrics checks its clients itself (app/metrics/route.ts) (leftByProxy in lib/http/front-door.ts; test/api/front-door.test.ts holds the two together).
export const config = {
  matcher: [
    '/((?!_next/static|_next/image|favicon.ico|api/v1/|api/health$|api/health/live$|api/health/ready$|api/health/startup$|api/mobile/v1/|api/3rdparty/v1/|api/bench/|3rdparty/v1/|metrics$|2010-04-01/|\\.well-known/api-catalog$).*)',
  ],
};
