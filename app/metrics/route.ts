import { secure } from '@/lib/http/front-door';
import { webMetricsClient } from '@/lib/metrics/access';
import { metricsAnswer } from '@/lib/metrics/answer';

/**
 * Prometheus's scrape (docs/operating.md, "Metrics"): not an API operation, so not in the OpenAPI
 * document. The proxy leaves it out (proxy.ts), since Prometheus addresses an instance by its
 * address, not the app's name: lib/metrics/access.ts makes the Host check where it matters, for
 * loopback clients (a page of another site rebound to 127.0.0.1 names its own host).
 */
export async function GET(req: Request): Promise<Response> {
  const response = await metricsAnswer(webMetricsClient(req));
  secure(response.headers);
  return response;
}
