// The server of `npm start` (scripts/start.mjs) and of a release (its start.mjs, scripts/package.mjs):
// Node's own http server around Next's request handler for the production build in `root`/`distDir`.
// Local mode listens on 127.0.0.1 unless HOST says otherwise; PORT defaults to 3000.
//
// The app learns each request's socket address, which Next's route handlers cannot see: it is passed
// on in the x-simgate-peer header with a token only this process knows (a client cannot forge it).
// The dev inbox and /metrics use it to answer clients on this machine only (none behind a proxy).
import cluster from 'node:cluster';
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';

/**
 * Calls one of the app's route handlers directly (lib/server/direct-routes.ts: the API, ADR 0014) as
 * Next's router would: with a web Request made from the Node request, at the URL Next would give it
 * (`http://<authority><path>`, https when X-Forwarded-Proto says so), and `params` as Next hands them
 * (a Promise), then writes its Response: status, headers, and the body as it comes (an event
 * stream's events as they are written). The Request's signal aborts when the client hangs up; the
 * body's reader is cancelled then too (an event stream ends).
 *
 * With the app's `held` bodies (lib/net/held-body.ts, handed over through the lifecycle), a small
 * request body goes to the route as the bytes read here and an answer made in one piece is written
 * as it is, neither through a web stream, and the signal is made only when the route asks for it.
 */
export async function serveDirect(
  handler,
  req,
  res,
  authority,
  params = {},
  held = globalThis.__simgateLifecycle?.heldBodies,
) {
  let controller;
  let hungUp = false;
  let onHangUp = () => {};
  const signal = () => {
    controller ??= new AbortController();
    if (hungUp && !controller.signal.aborted) controller.abort();
    return controller.signal;
  };
  // Closed before it finished: the client hung up (as Next's signalFromNodeResponse). A close after
  // the answer is written aborts nothing: an abort makes a DOMException with its stack, every request.
  // (A response closes once: `on`, without the wrapper `once` makes for each listener, as below.)
  res.on('close', () => {
    if (res.writableFinished) return;
    hungUp = true;
    controller?.abort();
    onHangUp();
  });
  try {
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const https = req.headers['x-forwarded-proto']?.includes('https') === true;
    const url = `${https ? 'https' : 'http'}://${authority}${req.url}`;
    const body = hasBody ? await bodyOf(req) : null;
    const request =
      held && !(body instanceof ReadableStream)
        ? held.request(url, req.method, headerPairs(req.headers), body, signal)
        : new Request(url, {
            method: req.method,
            headers: headerPairs(req.headers),
            signal: signal(),
            ...(hasBody ? { body, duplex: 'half' } : {}),
          });
    const response = await handler(request, { params: Promise.resolve(params) });
    res.statusCode = response.status;
    for (const [name, value] of response.headers) {
      if (name !== 'set-cookie') res.setHeader(name, value);
    }
    const cookies = response.headers.getSetCookie();
    if (cookies.length > 0) res.setHeader('set-cookie', cookies);
    // An answer in one piece, as the app made it: with its headers, in one write.
    const whole = held?.take(response);
    if (whole !== undefined) return void res.end(whole);
    if (!response.body) return void res.end();
    // An event stream's headers go at once; its events follow as they are written.
    const eventStream = response.headers.get('content-type')?.startsWith('text/event-stream') === true;
    if (eventStream) res.flushHeaders();
    const reader = response.body.getReader();
    onHangUp = () => void reader.cancel().catch(() => {});
    if (hungUp) onHangUp();
    let { done, value } = await reader.read();
    // A body in one piece (most answers: a JSON document) goes with its headers in one write.
    if (!done && !eventStream) {
      const first = value;
      ({ done, value } = await reader.read());
      if (done) return void res.end(first);
      if (!res.write(first)) await drained(res);
    }
    while (!done) {
      // A slow client holds the stream (an inbox export) rather than this process buffering it.
      if (!res.write(value)) await drained(res);
      ({ done, value } = await reader.read());
    }
    res.end();
  } catch (error) {
    if (hungUp) return;
    console.error('direct route failed:', error);
    if (!res.headersSent) {
      res.statusCode = 500;
      res.setHeader('content-type', 'application/problem+json');
      res.end(JSON.stringify({ title: 'Internal error', status: 500, code: 'INTERNAL_ERROR' }));
    } else {
      res.destroy();
    }
  }
}

/** A Node request's headers as name-value pairs, a repeated one (an array) as one pair each. */
function headerPairs(headers) {
  const pairs = [];
  for (const name in headers) {
    const value = headers[name];
    if (Array.isArray(value)) for (const one of value) pairs.push([name, one]);
    else if (value !== undefined) pairs.push([name, value]);
  }
  return pairs;
}

/** Resolves when `res` can take more (or is closed: the reader is cancelled then). */
function drained(res) {
  return new Promise((resolve) => {
    const go = () => {
      res.off('drain', go);
      res.off('close', go);
      resolve();
    };
    res.on('drain', go);
    res.on('close', go);
  });
}

/** Bodies up to this many bytes, by their Content-Length, are read before the handler is called. */
const SMALL_BODY = 64 * 1024;

/**
 * The Request's body: a small one (most API requests) as its bytes, read here, which undici takes at
 * a fraction of the cost of a Node stream turned into a web stream; any other as that stream, which
 * the handler reads as it comes (route() refuses one past its limit without reading it all). A body
 * that ends early (the client hung up) is a stream that fails, as the handler would have found it.
 */
function bodyOf(req) {
  const declared = Number(req.headers['content-length']);
  if (!(declared <= SMALL_BODY) || req.headers['transfer-encoding'] !== undefined) return Readable.toWeb(req);
  return new Promise((resolve) => {
    const chunks = [];
    const failed = (error) =>
      resolve(
        new ReadableStream({
          start(controller) {
            controller.error(error ?? new Error('aborted'));
          },
        }),
      );
    req.on('data', (chunk) => chunks.push(chunk));
    // Each settles the promise once; a request ends and closes once, so `on` is enough.
    req.on('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    req.on('error', failed);
    req.on('close', () => {
      if (!req.complete) failed();
    });
  });
}

/**
 * The headers by which a reverse proxy names the client it passes on. A request that reaches the
 * socket with one of them came through a proxy, whatever address it names: it is never a client on
 * this machine (lib/net/host-policy.ts `PROXIED`). Next adds X-Forwarded-For itself when it is
 * missing, so only this server, before Next, can tell.
 */
const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'];

/**
 * The x-simgate-peer header for a Node request: `<token> <socket address>`, then ` proxied` when the
 * request carries a forwarding header, then `mark` when given (the API's security headers are set).
 */
export function vouchFor(token, req, mark) {
  let vouched = `${token} ${req.socket.remoteAddress ?? ''}`;
  if (FORWARDING_HEADERS.some((name) => req.headers[name] !== undefined)) vouched += ' proxied';
  if (mark) vouched += ` ${mark}`;
  return vouched;
}

/** Serves the build in `root`/`distDir` until SIGTERM or SIGINT. */
export async function serve(root, distDir) {
  const requireFromRoot = createRequire(path.join(root, 'package.json'));
  // Where the app finds its migrations and node_modules (db/client.ts APP_HOME).
  globalThis.__simgateHome = root;
  const host = process.env.HOST ?? '127.0.0.1';
  const port = Number(process.env.PORT ?? '3000');
  const PEER_HEADER = 'x-simgate-peer';
  const token = randomBytes(24).toString('hex');
  process.env.SIMGATE_PEER_TOKEN = token;
  process.env.NODE_ENV = 'production';

  // The app's shutdown (lib/runtime/lifecycle.ts): this process owns the signals, so the app must not
  // exit on them itself; its signal ends long-polls and event streams, its `stop` closes the rest.
  globalThis.__simgateLifecycle ??= { controller: new AbortController() };
  const lifecycle = globalThis.__simgateLifecycle;
  // Every open phone connection listens for the shutdown on this one signal: thousands, not a leak.
  setMaxListeners(0, lifecycle.controller.signal);
  lifecycle.hostedByHttpServer = true;
  // Called by the app once it has started (lib/server/start.ts: configuration checked, database open
  // and migrated, background work running). Next starts it right after the server is created, without
  // waiting for a request, and holds the requests that come before it is done.
  const appStarted = new Promise((resolve) => {
    lifecycle.onStarted = resolve;
  });

  // Serve with the config the build was made with, as the server of Next's standalone output does
  // (this variable is how it hands the config on): otherwise Next transpiles next.config.ts again with
  // SWC, whose native module then stays mapped in the server, about 30 MB of its memory for nothing.
  const serverFiles = path.join(root, distDir, 'required-server-files.json');
  if (fs.existsSync(serverFiles)) {
    process.env.__NEXT_PRIVATE_STANDALONE_CONFIG = JSON.stringify(
      JSON.parse(fs.readFileSync(serverFiles, 'utf8')).config,
    );
  }
  // Next compresses the answers it routes (next.config `compress`, on unless set false): so does the direct lane.
  const nextConfig = process.env.__NEXT_PRIVATE_STANDALONE_CONFIG
    ? JSON.parse(process.env.__NEXT_PRIVATE_STANDALONE_CONFIG)
    : {};
  const compress = nextConfig.compress === false ? undefined : requireFromRoot('next/dist/compiled/compression')();
  const { releaseCompressionStream } = requireFromRoot('next/dist/server/lib/release-compression-stream');
  const { default: next } = await import('next');
  const app = next({ dev: false, dir: root, hostname: host, port });
  await app.prepare();
  const handle = app.getRequestHandler();

  /** Requests answered in at most this long after SIGTERM; the rest are cut. */
  const DRAIN_MS = 10_000;
  const inFlight = new Set();
  /** Of those, the answers of phones' connections that stay open (a long-poll, an event stream). */
  const phoneAnswers = new Set();
  let stopping = false;
  let onDrained = () => {};

  // In flight: every answer not yet closed, and every route handler still running (counted by the
  // app, lib/runtime/lifecycle.ts): a client that hangs up closes its answer at once, while the handler
  // may still be in the database, which the shutdown closes last.
  const drained = () => inFlight.size === 0 && !(lifecycle.running > 0);
  const whenDrained = () => {
    if (drained()) onDrained();
  };
  lifecycle.onIdle = whenDrained;

  /** The request's path as the app will route it (dot segments resolved); '' for a target that is no URL. */
  function pathnameOf(target) {
    try {
      return new URL(target, 'http://localhost').pathname;
    } catch {
      return '';
    }
  }

  /**
   * The path the direct lane routes: the request's own, or '' (Next's then) for a target that is not
   * a plain path as it came (absolute, `//…`, dot segments Next would resolve, characters a URL
   * would percent-encode).
   */
  const PLAIN_PATH = /^\/[A-Za-z0-9\-._~!$&'()*+,;=:@%/]*$/;
  const DOT_SEGMENT = /\/\.\.?(\/|$)/;
  function directPathOf(target) {
    const end = target.indexOf('?');
    const pathname = end < 0 ? target : target.slice(0, end);
    return PLAIN_PATH.test(pathname) && !pathname.startsWith('//') && !DOT_SEGMENT.test(pathname) ? pathname : '';
  }
  // The authority of the URL Next gives a route's Request (its bind address), which the direct lane gives too.
  const authority = `${host.includes(':') ? `[${host}]` : host}:${port}`;

  const server = http.createServer((req, res) => {
    // The API's security headers, which the app hands over once started (lib/http/front-door.ts
    // `apiSecurityHeaders`): set here they cost a `setHeader` each; the mark tells route() it need
    // not set them on the Response.
    const api = lifecycle.apiHeaders;
    const secured = api?.guarded(pathnameOf(req.url ?? '')) === true;
    if (secured) for (const [name, value] of api.headers) res.setHeader(name, value);
    req.headers[PEER_HEADER] = vouchFor(token, req, secured ? api.mark : undefined);
    inFlight.add(res);
    res.on('close', () => {
      inFlight.delete(res);
      // A phone's connection whose answer ended during the shutdown (an event stream's last event,
      // whose header went out long before): hang up, so the phone's next request goes to a live process.
      if (phoneAnswers.delete(res) && stopping) req.socket.end();
      whenDrained();
    });
    // A request that came on a kept-alive connection during the shutdown: answer it, then hang up.
    if (stopping) res.setHeader('connection', 'close');
    const direct = lifecycle.directRoute?.(req.method ?? '', directPathOf(req.url ?? ''));
    if (direct?.phoneConnection) phoneAnswers.add(res);
    if (direct) {
      if (compress) {
        // As Next's own server does (next/dist/server/lib/router-server.js): the same middleware, and
        // on a client's hang-up the zlib stream it would otherwise leave open is released.
        compress(req, res, () => {});
        res.on('close', () => {
          if (!res.writableFinished) releaseCompressionStream(res);
        });
      }
      return void serveDirect(direct.handler, req, res, authority, direct.params);
    }
    handle(req, res);
  });
  // A port already taken (or a host not on this machine): say so and stop, rather than stay up
  // serving nothing (Next's handler of uncaught exceptions would keep the process alive).
  const cannotListen = (error) => {
    console.error(`Simgate cannot listen on ${host}:${port}: ${error.message}`);
    process.exit(1);
  };
  server.once('error', cannotListen);
  server.listen(port, host, () => {
    server.off('error', cannotListen);
    // "ready" once the app has started too: a configuration it cannot run with ends the process
    // (exit 1, every problem listed) without it.
    void appStarted.then(() => {
      const ready = `Simgate ready on http://${host.includes(':') ? `[${host}]` : host}:${port}`;
      // One of several web processes: the primary says "ready" once every one is (serveAll).
      if (cluster.isWorker) process.send?.({ type: READY, ready });
      else console.log(ready);
    });
  });

  /**
   * SIGTERM/SIGINT: stop accepting connections, tell waiting requests to answer now (long-polling
   * claims answer what they have, event streams send a reconnect hint and end), let the requests in
   * flight finish (10 s at most), then stop the background work (a webhook post in flight finishes),
   * close the database and exit 0.
   */
  async function shutDown(signal) {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: shutting down`);
    server.close();
    server.closeIdleConnections();
    // The phones' answers not begun yet (long-polls waiting) go with `Connection: close`: a phone claims
    // again at once, and that claim goes to a live process rather than back down this connection. (Other
    // answers keep theirs: a load balancer's probe behind them on the connection hears readiness 503.)
    for (const res of phoneAnswers) if (!res.headersSent) res.setHeader('connection', 'close');
    lifecycle.controller.abort();
    if (!drained()) {
      let timer;
      await new Promise((resolve) => {
        onDrained = resolve;
        timer = setTimeout(resolve, DRAIN_MS);
      });
      clearTimeout(timer);
    }
    if (!drained()) {
      console.error(
        `${inFlight.size} answer(s) and ${lifecycle.running ?? 0} handler(s) still open after ${DRAIN_MS / 1000} s: cut${inFlight.size > 0 ? ` (${openAnswers(inFlight)})` : ''}`,
      );
    }
    server.closeAllConnections();
    try {
      await lifecycle.stop?.();
    } catch (error) {
      console.error('shutdown:', error);
    }
    process.exit(0);
  }
  // Repeated signals (the terminal's and the primary's, in cluster mode) start one shutdown.
  for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => void shutDown(signal));
  // A web process whose primary is gone, however it ended, shuts down as on SIGTERM.
  if (cluster.isWorker) process.once('disconnect', () => void shutDown('disconnect'));
}

/** The answers still open, counted by method and path, most first: "9 GET /api/mobile/v1/events, …". */
export function openAnswers(responses) {
  const counts = new Map();
  for (const res of responses) {
    const what = `${res.req?.method ?? '?'} ${(res.req?.url ?? '?').split('?')[0]}`;
    counts.set(what, (counts.get(what) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 5)
    .map(([what, count]) => `${count} ${what}`)
    .join(', ');
}

const READY = 'simgate:ready';
/** Most web processes WEB_CONCURRENCY may ask for. */
const MAX_WEB_PROCESSES = 64;

/**
 * How many web processes to run: WEB_CONCURRENCY, by default one per core with PostgreSQL; always one
 * with the embedded database (PGlite), which only one process can open. Throws with the reason on a
 * value it cannot run with.
 */
export function webConcurrency(env = process.env) {
  const raw = env.WEB_CONCURRENCY?.trim();
  const postgres = Boolean(env.DATABASE_URL?.trim());
  if (!raw) return postgres ? Math.min(os.availableParallelism(), MAX_WEB_PROCESSES) : 1;
  const processes = Number(raw);
  if (!Number.isInteger(processes) || processes < 1 || processes > MAX_WEB_PROCESSES) {
    throw new Error(`WEB_CONCURRENCY must be a whole number from 1 to ${MAX_WEB_PROCESSES}, not "${raw}"`);
  }
  if (processes > 1 && !postgres) {
    throw new Error('WEB_CONCURRENCY above 1 needs DATABASE_URL: the embedded database is one process’s own');
  }
  return processes;
}

/**
 * `npm start`: `webConcurrency()` web processes on one port (Node's cluster: the primary accepts and
 * hands connections out in turn), each an instance as several machines' instances are (ADR 0011: the
 * database carries wake-ups, key revocations and stream caps between them). The primary serves
 * nothing itself: it starts the processes, starts another when one dies, passes SIGTERM and SIGINT
 * on and exits once they have all shut down, and sums their metrics for /metrics (lib/metrics/scrape.ts).
 * With one process, that process serves, as before.
 */
export async function serveAll(root, distDir) {
  if (cluster.isWorker) return serve(root, distDir);
  let processes;
  try {
    processes = webConcurrency();
  } catch (error) {
    console.error(`Simgate cannot start: ${error.message}`);
    process.exit(1);
  }
  if (processes === 1) return serve(root, distDir);

  const requireFromRoot = createRequire(path.join(root, 'package.json'));
  const { AggregatorRegistry } = requireFromRoot('prom-client');
  let stopping = false;
  let readyCount = 0;
  let announced = false;
  const started = new Map();
  /** Each process's slot (0 to processes - 1), which its replacement takes: the `process` label of its metrics. */
  const slots = new Map();
  const fork = (slot) => {
    const worker = cluster.fork({ SIMGATE_WEB_PROCESS: String(slot) });
    started.set(worker.id, Date.now());
    slots.set(worker.id, slot);
  };
  cluster.on('message', (worker, message) => {
    if (message?.type === READY && !announced && ++readyCount === processes) {
      announced = true;
      console.log(`${message.ready} (${processes} web processes)`);
    } else if (message?.type === METRICS_ASK) {
      void clusterMetrics(AggregatorRegistry, worker).then(
        (answer) => worker.isConnected() && worker.send({ type: METRICS_ANSWER, id: message.id, ...answer }),
      );
    }
  });
  cluster.on('exit', (worker, code, signal) => {
    const livedMs = Date.now() - (started.get(worker.id) ?? 0);
    const slot = slots.get(worker.id) ?? 0;
    started.delete(worker.id);
    slots.delete(worker.id);
    if (stopping) {
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0);
      return;
    }
    // One that dies at once (a configuration it cannot run with) would die again: stop everything.
    if (livedMs < 5_000 && !announced) {
      console.error(`web process ${worker.process.pid} exited at start (${signal ?? code}): stopping`);
      stopping = true;
      for (const other of Object.values(cluster.workers ?? {})) other?.process.kill('SIGTERM');
      process.exitCode = typeof code === 'number' && code !== 0 ? code : 1;
      if (Object.keys(cluster.workers ?? {}).length === 0) process.exit();
      return;
    }
    console.error(`web process ${worker.process.pid} exited (${signal ?? code}): starting another`);
    fork(slot);
  });
  const stop = (signal) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: shutting down ${processes} web processes`);
    for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
    // Each process drains for 10 s at most, then closes the database: past a minute, end them.
    setTimeout(() => {
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill('SIGKILL');
      process.exit(1);
    }, 60_000).unref();
  };
  for (const signal of ['SIGTERM', 'SIGINT']) process.on(signal, () => stop(signal));
  for (let slot = 0; slot < processes; slot++) fork(slot);
}

const METRICS_ASK = 'simgate:metrics';
const METRICS_ANSWER = 'simgate:metrics-answer';
const METRICS_JSON_ASK = 'simgate:metrics-json';
const METRICS_JSON_ANSWER = 'simgate:metrics-json-answer';
let metricsAsks = 0;

/**
 * Every web process's metrics, summed as prom-client's cluster support sums them (a counter's series
 * added up; a gauge by the aggregator its definition names, `first` for the global ones: the asker's,
 * whose reading is fresh): the processes that have not answered within 3 s are left out.
 */
async function clusterMetrics(AggregatorRegistry, asker) {
  const id = ++metricsAsks;
  // The asking process first: its global gauges were read for this scrape (aggregator 'first').
  const others = Object.values(cluster.workers ?? {}).filter((worker) => worker !== asker && worker?.isConnected());
  const workers = [asker, ...others];
  const answers = await Promise.all(
    workers.map(
      (worker) =>
        new Promise((resolve) => {
          const timer = setTimeout(() => done(undefined), 3_000);
          const onMessage = (message) => {
            if (message?.type === METRICS_JSON_ANSWER && message.id === id) done(message.metrics);
          };
          const done = (metrics) => {
            clearTimeout(timer);
            worker.off('message', onMessage);
            resolve(metrics);
          };
          worker.on('message', onMessage);
          worker.send({ type: METRICS_JSON_ASK, id });
        }),
    ),
  );
  const registry = AggregatorRegistry.aggregate(answers.filter(Boolean));
  return { body: await registry.metrics(), contentType: registry.contentType };
}
