import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const starters = vi.hoisted(() => {
  const starter = () => vi.fn(async () => async () => {});
  return {
    fleet: starter(),
    messaging: starter(),
    webhooks: starter(),
    email: starter(),
    alerts: starter(),
    rateLimit: starter(),
    stats: starter(),
    maintenance: starter(),
  };
});
vi.mock('@/lib/heartbeats/background', () => ({ startFleetWork: starters.fleet }));
vi.mock('@/lib/messages/background', () => ({ startMessagingWork: starters.messaging }));
vi.mock('@/lib/webhooks/background', () => ({ startWebhookWork: starters.webhooks }));
vi.mock('@/lib/email/background', () => ({ startEmailWork: starters.email }));
vi.mock('@/lib/alerts/background', () => ({ startAlertWork: starters.alerts }));
vi.mock('@/lib/rate-limit/sweep', () => ({ startRateLimitHousekeeping: starters.rateLimit }));
vi.mock('@/lib/stats/background', () => ({ startStatsWork: starters.stats }));
vi.mock('@/lib/server/embedded-maintenance', () => ({ startEmbeddedMaintenance: starters.maintenance }));

const all = () => Object.values(starters);

/** A fresh copy of the module, as a new process would load it. */
async function backgroundModule() {
  vi.resetModules();
  return import('@/lib/server/background');
}

beforeEach(() => {
  for (const starter of all()) starter.mockClear();
});
afterEach(() => {
  vi.unstubAllEnvs();
});

describe('BACKGROUND, the switch for web-only instances', () => {
  it('runs the sweeps and the delivery loop in the server by default', async () => {
    const { startBackgroundWork } = await backgroundModule();
    await startBackgroundWork();
    for (const starter of all()) expect(starter).toHaveBeenCalledOnce();
  });

  it('with BACKGROUND=off the server starts no sweep, no delivery loop, no timer', async () => {
    vi.stubEnv('BACKGROUND', 'off');
    vi.useFakeTimers();
    try {
      const { startBackgroundWork } = await backgroundModule();
      await startBackgroundWork();
      for (const starter of all()) expect(starter).not.toHaveBeenCalled();
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('npm run worker runs the work whatever BACKGROUND says, once', async () => {
    vi.stubEnv('BACKGROUND', 'off');
    const { startBackgroundWork } = await backgroundModule();
    await startBackgroundWork();
    await startBackgroundWork({ worker: true });
    await startBackgroundWork({ worker: true });
    for (const starter of all()) expect(starter).toHaveBeenCalledOnce();
  });
});
