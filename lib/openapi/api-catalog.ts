import { config } from '@/lib/config';

/** RFC 9727's media type for an API catalog: a linkset (RFC 9264) with the catalog profile. */
export const API_CATALOG_TYPE = 'application/linkset+json; profile="https://www.rfc-editor.org/info/rfc9727"';
export const API_CATALOG_LINK = '</.well-known/api-catalog>; rel="api-catalog"';

type Link = { href: string; type: string };

/**
 * /.well-known/api-catalog (RFC 9727): the app's APIs, each with its description (the OpenAPI
 * document), its documentation and its readiness probe. SMSGate's integrator API is listed first,
 * as its reference server lists it (handlers/api_catalog.go); all are in the one OpenAPI document.
 */
export function apiCatalog(req: Request): { linkset: Array<Record<string, string | Link[]>> } {
  // The name the client addressed (route() has checked it against the app's names), else APP_URL's.
  const url = new URL(req.url);
  const host = req.headers.get('host');
  const base = (config.appUrl ?? (host ? `${url.protocol}//${host}` : url.origin)).replace(/\/+$/, '');
  const entry = (anchor: string, status: string) => ({
    anchor: `${base}${anchor}`,
    'service-desc': [{ href: `${base}/api/v1/openapi.json`, type: 'application/json' }],
    'service-doc': [{ href: `${base}/docs`, type: 'text/html' }],
    status: [{ href: `${base}${status}`, type: 'application/json' }],
  });
  return {
    linkset: [
      entry('/3rdparty/v1', '/3rdparty/v1/health/ready'),
      entry('/api/v1', '/api/health/ready'),
      entry('/2010-04-01', '/api/health/ready'),
    ],
  };
}
