import { problemBody, problemResponse } from '@/lib/net/problem';
import { type MetricsAccess, type MetricsClient, metricsAccess } from './access';
import { scrape } from './scrape';

/**
 * GET /metrics, whoever serves it (the web app's route, the worker's listener): the scrape for a
 * client that may read it, else 401 (a token is set: there is a way in) or 404 (there is none).
 */
export async function metricsAnswer(client: MetricsClient): Promise<Response> {
  const access: MetricsAccess = metricsAccess(client);
  if (access === 'unauthorized') {
    return problemResponse(
      problemBody('UNAUTHENTICATED', 'Reading the metrics takes METRICS_TOKEN as a Bearer token.'),
      {
        'WWW-Authenticate': 'Bearer realm="metrics"',
      },
    );
  }
  if (access === 'not_found') return problemResponse(problemBody('NOT_FOUND', 'Page not found.'));
  const { body, contentType } = await scrape();
  return new Response(body, { status: 200, headers: { 'content-type': contentType, 'cache-control': 'no-store' } });
}
