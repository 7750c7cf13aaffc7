import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ConnectionResults, connectionChecks, connectionProcesses } from '@/bench/connections';
import { deviceKey, type Fleet, startFleet } from '@/bench/fleet';
import { until } from './poll';

describe('the connections bench', () => {
  it('runs two web processes past 10,000 phones, one up to there, or as many as it is told', () => {
    expect(connectionProcesses(2_000, {})).toBe(1);
    expect(connectionProcesses(10_000, {})).toBe(1);
    expect(connectionProcesses(20_000, {})).toBe(2);
    expect(connectionProcesses(20_000, { BENCH_CONNECTIONS_PROCESSES: '4' })).toBe(4);
  });

  const results = (changes: Partial<ConnectionResults>): ConnectionResults => ({
    phones: 20_000,
    processes: 2,
    connections: 20_000,
    streams: 10_000,
    long_polls: 10_000,
    connected_at_end: 20_000,
    dropped: 0,
    rss_mb: 1_900,
    rss_target_mb: 2_048,
    heap_used_mb: 800,
    heap_limit_mb: 1_200,
    open_fds: 20_100,
    db_connections: 26,
    event_loop_delay_p99_ms: 40,
    cpu_ms_per_idle_connection_per_min: 5,
    wake_ms: {
      p50: 5,
      p99: 100,
      sends: 300,
      missed: 0,
      refused: 0,
      by_kind: { stream: { p50: 4, p99: 90, heard: 150 }, poll: { p50: 6, p99: 100, heard: 150 } },
    },
    connect_s: 20,
    gc: { major: { count: 1, ms_avg: 10 }, minor: { count: 10, ms_avg: 5 } },
    reconnect: { phones: 20_000, reconnected: 20_000, seconds: 60, status_5xx: 0, refused_answers: 10 },
    server_errors: 0,
    per_process: [
      { pid: 1, role: 'primary', rss_mb: 100, open_fds: 30 },
      { pid: 2, role: 'web', slot: 0, rss_mb: 900, open_fds: 10_035, event_loop_delay_p99_ms: 40 },
      { pid: 3, role: 'web', slot: 1, rss_mb: 900, open_fds: 10_035, event_loop_delay_p99_ms: 30 },
    ],
    ...changes,
  });
  const missed = (r: ConnectionResults) =>
    connectionChecks(r)
      .filter(([, ok]) => !ok)
      .map(([name]) => name);

  it('passes figures within every target, and names the one a figure misses', () => {
    expect(missed(results({}))).toEqual([]);
    expect(missed(results({ rss_mb: 2_049 }))).toEqual(['20,000 phones: RSS of all 3 server processes ≤ 2048 MB']);
    // A web process that did not report its event-loop delay is a miss, not a pass.
    expect(missed(results({ event_loop_delay_p99_ms: Number.NaN }))).toEqual([
      '20,000 phones: event-loop delay p99 ≤ 50 ms in every web process',
    ]);
  });
});

/**
 * The load generators against a stand-in server: each phone connects from a process of its own, the
 * counts come back over IPC, and a watched phone's event is heard.
 */
describe('the connections bench’s load generators', () => {
  const streams = new Map<string, http.ServerResponse>();
  let server: http.Server;
  let fleet: Fleet;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      if (req.url === '/api/mobile/v1/events') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(': hello\n\n');
        streams.set(String(req.headers.authorization), res);
        return;
      }
      req.resume();
      req.on('end', () => setTimeout(() => res.end('{"messages":[]}'), 200));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    fleet = startFleet((server.address() as { port: number }).port, 4);
  });

  afterAll(async () => {
    await fleet?.stop();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('connects every phone, hears a watched one, and counts the phones back after a restart', async () => {
    await until(async () => fleet.connected() === 4, { timeoutMs: 20_000, intervalMs: 50 });
    const watch = await fleet.watch(2);
    streams.get(`Bearer ${deviceKey(2)}`)?.write('event: MessageEnqueued\ndata: {}\n\n');
    expect(await watch.heard).toBeGreaterThan(0);
    await fleet.mark();
    expect(fleet.reconnected()).toBe(0);
    // The streams hang up, as on a restart: they come back (after the app's 5-10 s), the polls at once.
    for (const res of streams.values()) res.destroy();
    await until(async () => fleet.reconnected() === 4, { timeoutMs: 20_000, intervalMs: 100 });
  }, 40_000);
});
