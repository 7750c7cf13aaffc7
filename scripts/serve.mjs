// The server of `npm start` (scripts/start.mjs) and of a release (its start.mjs, scripts/package.mjs):
// Node's own http server around Next's request handler for the production build in `root`/`distDir`.
// Local mode listens on 127.0.0.1 unless HOST says otherwise; PORT defaults to 3000.
//
// The app learns each request's socket address, which Next's route handlers cannot see: it is passed
// on in the x-simgate-peer header with a token only this process knows (a client cannot forge it).
// The dev inbox and /metrics use it to answer clients on this machine only (none behind a proxy).
import { randomBytes } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { Readable } from 'node:stream';

/**
 * Calls one of the app's route handlers directly (lib/server/direct-routes.ts: the API, ADR 0014) as
 * Next's router would: with a web Request made from the Node request, at the URL Next would give it
 * (`http://<authority><path>`, https when X-Forwarded-Proto says so), and `params` as Next hands them
 * (a Promise), then writes its Response: status, headers, and the body as it comes (an event
 * stream's events as they are written). The Request's signal aborts when the client hangs up; the
 * body's reader is cancelled then too (an event stream ends).
 */
export async function serveDirect(handler, req, res, authority, params = {}) {
  const controller = new AbortController();
  // Closed before it finished: the client hung up (as Next's signalFromNodeResponse). A close after
  // the answer is written aborts nothing: an abort makes a DOMException with its stack, every request.
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  try {
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headers)) {
      if (Array.isArray(value)) for (const one of value) headers.append(name, one);
      else if (value !== undefined) headers.set(name, value);
    }
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const https = req.headers['x-forwarded-proto']?.includes('https') === true;
    const request = new Request(`${https ? 'https' : 'http'}://${authority}${req.url}`, {
      method: req.method,
      headers,
      signal: controller.signal,
      ...(hasBody ? { body: await bodyOf(req), duplex: 'half' } : {}),
    });
    const response = await handler(request, { params: Promise.resolve(params) });
    res.statusCode = response.status;
    for (const [name, value] of response.headers) {
      if (name !== 'set-cookie') res.setHeader(name, value);
    }
    const cookies = response.headers.getSetCookie();
    if (cookies.length > 0) res.setHeader('set-cookie', cookies);
    if (!response.body) return void res.end();
    // An event stream's headers go at once; its events follow as they are written.
    const eventStream = response.headers.get('content-type')?.startsWith('text/event-stream') === true;
    if (eventStream) res.flushHeaders();
    const reader = response.body.getReader();
    controller.signal.addEventListener('abort', () => void reader.cancel().catch(() => {}), { once: true });
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
    if (controller.signal.aborted) return;
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
    req.once('end', () => resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    req.once('error', failed);
    req.once('close', () => {
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
    res.once('close', () => {
      inFlight.delete(res);
      whenDrained();
    });
    // A request that came on a kept-alive connection during the shutdown: answer it, then hang up.
    if (stopping) res.setHeader('connection', 'close');
    const direct = lifecycle.directRoute?.(req.method ?? '', directPathOf(req.url ?? ''));
    if (direct) {
      if (compress) {
        // As Next's own server does (next/dist/server/lib/router-server.js): the same middleware, and
        // on a client's hang-up the zlib stream it would otherwise leave open is released.
        compress(req, res, () => {});
        res.once('close', () => {
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
    void appStarted.then(() =>
      console.log(`Simgate ready on http://${host.includes(':') ? `[${host}]` : host}:${port}`),
    );
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
        `${inFlight.size} answer(s) and ${lifecycle.running ?? 0} handler(s) still open after ${DRAIN_MS / 1000} s: cut`,
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
  for (const signal of ['SIGTERM', 'SIGINT']) process.once(signal, () => void shutDown(signal));
}
