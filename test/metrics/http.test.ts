import { describe, expect, it } from 'vitest';
import { routePattern } from '@/lib/http/route';
import { httpAnswered, surfaceOf } from '@/lib/metrics/http';
import { registry } from '@/lib/metrics/registry';

async function routeLabels(): Promise<string[]> {
  const metric = await registry.getSingleMetric('simgate_http_requests_total')!.get();
  return metric.values.map((value) => String(value.labels.route));
}

describe('the labels of a request', () => {
  it('names the surface by the path', () => {
    expect(surfaceOf('/api/v1/messages')).toBe('v1');
    expect(surfaceOf('/api/mobile/v1/message')).toBe('mobile');
    expect(surfaceOf('/api/3rdparty/v1/message')).toBe('3rdparty');
    expect(surfaceOf('/3rdparty/v1/message')).toBe('3rdparty');
    expect(surfaceOf('/2010-04-01/Accounts/[accountSid]/Messages.json')).toBe('twilio');
    for (const pathname of ['/api/health', '/api/auth/session', '/api/dev/inbox']) {
      expect(surfaceOf(pathname)).toBe('dashboard');
    }
  });

  it('labels the template, one for both paths of the integrator API and one for any depth of a catch-all', async () => {
    const id = crypto.randomUUID();
    httpAnswered('v1', routePattern(`/api/v1/messages/${id}`, { id }), 'GET', 200, 0.01);
    httpAnswered('3rdparty', '/3rdparty/v1/message/[id]', 'GET', 404, 0.01);
    httpAnswered('v1', routePattern('/api/v1/a/b/c', { unknown: ['a', 'b', 'c'] }), 'GET', 404, 0.01);
    const routes = await routeLabels();
    expect(routes).toContain('/api/v1/messages/[id]');
    expect(routes).toContain('/api/3rdparty/v1/message/[id]');
    expect(routes).toContain('/api/v1/[...unknown]');
    expect(routes.join(' ')).not.toContain(id);
  });

  it('past 400 templates in a process, a request counts under `other`', async () => {
    for (let i = 0; i < 450; i++) httpAnswered('v1', `/api/v1/made-up-${i}`, 'GET', 404, 0.001);
    const routes = await routeLabels();
    expect(routes.length).toBeLessThanOrEqual(401);
    expect(routes).toContain('other');
    expect(routes).not.toContain('/api/v1/made-up-449');
  });
});
