import http from 'node:http';
import { log } from '@/lib/log';
import { nodeMetricsClient } from './access';
import { metricsAnswer } from './answer';

/**
 * `npm run worker`'s metrics listener (METRICS_PORT): GET /metrics, with the web app's access rule
 * (lib/metrics/access.ts), and 404 for anything else. Resolves once listening; `close` stops it.
 */
export function serveMetrics(port: number, host: string): Promise<{ port: number; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    void answer(req)
      .then(async (response) => {
        res.writeHead(response.status, Object.fromEntries(response.headers));
        res.end(req.method === 'HEAD' ? undefined : Buffer.from(await response.arrayBuffer()));
      })
      .catch((error: unknown) => {
        log.error({ err: error }, 'metrics: the scrape failed');
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
        res.end();
      });
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      const address = server.address();
      resolve({
        port: typeof address === 'object' && address ? address.port : port,
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}

function answer(req: http.IncomingMessage): Promise<Response> {
  if (pathnameOf(req.url ?? '') !== '/metrics' || (req.method !== 'GET' && req.method !== 'HEAD')) {
    return Promise.resolve(new Response('Not found\n', { status: 404, headers: { 'content-type': 'text/plain' } }));
  }
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) headers.set(name, value.join(', '));
  }
  return metricsAnswer(nodeMetricsClient(req.socket.remoteAddress, headers));
}

function pathnameOf(target: string): string {
  try {
    return new URL(target, 'http://localhost').pathname;
  } catch {
    return '';
  }
}
