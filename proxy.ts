import { type NextRequest, NextResponse } from 'next/server';
import { hostPolicyFromEnv, isAllowedHost, isLoopbackClient } from '@/lib/http/host';
import { problemBody, problemResponse } from '@/lib/http/problem';

const DEV_INBOX = /^\/(api\/)?dev\/inbox(\/|$)/;

/**
 * Runs before every route and page: a request addressed to a name the app is not served under
 * (DNS rebinding, a misrouted proxy) is refused with 421 before anything else happens, and the
 * dev inbox (page and API) is not found for clients on other machines. The health check answers
 * any name, for load balancers that probe by address.
 */
export function proxy(request: NextRequest): Response {
  const { pathname } = request.nextUrl;
  if (pathname === '/api/health') return NextResponse.next();
  if (!isAllowedHost(request.headers.get('host'), hostPolicyFromEnv())) return misdirected();
  if (DEV_INBOX.test(pathname) && !isLoopbackClient(request.headers, request.url)) {
    return problemResponse(problemBody('NOT_FOUND', 'Page not found.'));
  }
  return NextResponse.next();
}

function misdirected(): Response {
  return problemResponse(
    problemBody(
      'MISDIRECTED_REQUEST',
      'This server does not answer for that host name. Set APP_URL (or ALLOWED_HOSTS) to the name it is served under.',
    ),
  );
}
