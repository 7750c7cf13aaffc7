import { config } from '@/lib/config';

/**
 * The origin clients reach the app at: `APP_URL` when set (behind a proxy it must be), else the
 * origin the request addressed (its Host header: Next builds `req.url` from its bind address).
 */
export function publicOrigin(req: Request): string {
  if (config.appUrl) return new URL(config.appUrl).origin;
  const url = new URL(req.url);
  const host = req.headers.get('host');
  return host ? `${url.protocol}//${host}` : url.origin;
}
