const MAX_IP_LENGTH = 64;

/**
 * The caller's address for per-IP limits: the first `x-forwarded-for` entry (the client as the
 * reverse proxy saw it), else `x-real-ip`, else "unknown". Deploy behind a proxy that sets these.
 */
export function clientIp(req: Request): string {
  const forwarded = req.headers.get('x-forwarded-for')?.split(',')[0]?.trim();
  const real = req.headers.get('x-real-ip')?.trim();
  return (forwarded || real || 'unknown').slice(0, MAX_IP_LENGTH);
}
