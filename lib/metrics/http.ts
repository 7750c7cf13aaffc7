import { metrics, type Surface, statusClass } from './registry';

/** `/api/v1/…` → v1, `/api/mobile/…` → mobile, the integrator API (at both its paths) → 3rdparty, the Twilio-compatible API (`/2010-04-01/…`) → twilio, the MCP server (`/mcp`) → mcp; the rest (sign-in, the dashboard's data, health) → dashboard. */
export function surfaceOf(pathname: string): Surface {
  if (pathname.startsWith('/api/v1/')) return 'v1';
  if (pathname.startsWith('/api/mobile/')) return 'mobile';
  if (pathname.startsWith('/api/3rdparty/') || pathname.startsWith('/3rdparty/')) return '3rdparty';
  if (pathname.startsWith('/2010-04-01/')) return 'twilio';
  if (pathname === '/mcp') return 'mcp';
  return 'dashboard';
}

/**
 * Route templates a process labels at most: every route of the app fits many times over. Past it
 * (a template that somehow kept a value of its path) a request counts under `other`, so that no
 * mistake can grow the series without bound.
 */
const MAX_ROUTES = 400;
const seen = new Set<string>();

function boundedRoute(template: string): string {
  // The integrator API answers at /3rdparty/v1 too (a rewrite): one template for both paths.
  const aliased = template.startsWith('/3rdparty/') ? `/api${template}` : template;
  // A catch-all's segments, however many, are one `[...name]`.
  const route = aliased.replace(/(\/\[\.\.\.[^\]/]+\])+/g, '$1');
  if (seen.has(route)) return route;
  if (seen.size >= MAX_ROUTES) return 'other';
  seen.add(route);
  return route;
}

type Series = { count: { inc: () => void }; duration: { observe: (seconds: number) => void } };

/**
 * Each request's series, found by one string key: prom-client would otherwise sort and join the
 * label names of both metrics at every request, on the hot path. Bounded as the routes are.
 */
const series = new Map<string, Series>();

function seriesOf(surface: Surface, route: string, method: string, status: string): Series {
  const key = `${surface} ${method} ${status} ${route}`;
  let found = series.get(key);
  if (!found) {
    found = {
      count: metrics.httpRequests.labels({ surface, route, method, status }),
      duration: metrics.httpDuration.labels({ surface, route, method }),
    };
    series.set(key, found);
  }
  return found;
}

/** An API request answered: `template` is its route's template (lib/http/route.ts `routePattern`), never its path. */
export function httpAnswered(
  surface: Surface,
  template: string,
  method: string,
  status: number,
  seconds: number,
): void {
  const { count, duration } = seriesOf(surface, boundedRoute(template), method, statusClass(status));
  count.inc();
  duration.observe(seconds);
}
