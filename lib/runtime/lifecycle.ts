import { setMaxListeners } from 'node:events';
/** `running`: started in this process; `off`: BACKGROUND=off, left to `npm run worker` processes. */
export type BackgroundState = 'running' | 'off';

/**
 * What the app shares with the process that hosts it, across every bundle Next evaluates and
 * scripts/start.mjs (through globalThis, under `__simgateLifecycle`).
 *
 * The shutdown: a signal that aborts when shutdown begins, which requests that wait (long-polling
 * claims, the SMSGate app's event streams) watch to end early, the count of route handlers running,
 * and the function that stops the background work and closes the database once requests are done.
 * Under `npm start`, scripts/start.mjs owns SIGTERM/SIGINT (it marks itself `hostedByHttpServer`
 * before Next starts): it stops accepting, aborts the signal, waits for the requests in flight
 * (10 s at most), then calls `stop`. Elsewhere (`npm run worker`) lib/server/start.ts does.
 *
 * The API's security headers, which the app hands the host at start to set on the Node response
 * (`offerApiHeaders`; lib/http/front-door.ts).
 *
 * Whether the app has started and runs the background work: what the health probes read
 * (lib/runtime/health.ts), whichever bundle answers them.
 */
type Lifecycle = {
  controller: AbortController;
  /** What `onShutdown` calls when `controller` aborts (the controller's own: tests replace it). */
  shutdownCallbacks?: { signal: AbortSignal; callbacks: Set<() => void> };
  hostedByHttpServer?: boolean;
  stop?: () => Promise<void>;
  /** Route handlers running now (`handling`). */
  running?: number;
  /** The host's: called when `running` comes down to 0. */
  onIdle?: () => void;
  /** The host's: called once the app has started (`markStarted`). */
  onStarted?: () => void;
  /** Whether the app has started (`markStarted`): what the startup probe answers. */
  started?: boolean;
  /** Whether this process runs the background work, once lib/server/background.ts has decided. */
  background?: BackgroundState;
  /**
   * For the host to set on the answers of `guarded` paths itself, adding `mark` to the peer header
   * of those requests (lib/http/front-door.ts).
   */
  apiHeaders?: { guarded: (pathname: string) => boolean; headers: Array<[string, string]>; mark: string };
  /**
   * The routes the host calls itself instead of through Next's router: the API's route handlers, by
   * method and path (lib/server/direct-routes.ts).
   */
  directRoute?: DirectRouter;
  /** For the host to build the direct lane's requests and write its answers without web streams (lib/net/held-body.ts). */
  heldBodies?: HeldBodies;
};

/**
 * Requests whose body the host has read (`bytes`; null for none), held as they are, with the host's
 * signal made on demand; and an answer's body in one piece, when the app made it so and nothing read it.
 */
export type HeldBodies = {
  request: (
    url: string,
    method: string,
    headers: Array<[string, string]>,
    bytes: Uint8Array | null,
    signal: () => AbortSignal,
  ) => Request;
  take: (response: Response) => Uint8Array | string | undefined;
};

/** A route handler as the host calls it: a web Request in, a Response out (lib/http/route.ts `RouteHandler`). */
export type DirectHandler = (req: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

/**
 * A request's route on the direct lane: its handler, its path's parameters (decoded), and whether it is
 * a phone's connection that stays open (a long-polling claim, an event stream), which the shutdown
 * answers with `Connection: close` (scripts/serve.mjs).
 */
export type DirectRoute = { handler: DirectHandler; params: Record<string, string>; phoneConnection?: true };

/** The route of a method and path (dot segments resolved), or undefined for Next to serve. */
export type DirectRouter = (method: string, pathname: string) => DirectRoute | undefined;

const globalForLifecycle = globalThis as typeof globalThis & { __simgateLifecycle?: Lifecycle };

function lifecycle(): Lifecycle {
  if (!globalForLifecycle.__simgateLifecycle) {
    const controller = new AbortController();
    // Every open phone connection listens for the shutdown on this one signal: thousands, not a leak.
    setMaxListeners(0, controller.signal);
    globalForLifecycle.__simgateLifecycle = { controller };
  }
  return globalForLifecycle.__simgateLifecycle;
}

/** Aborts when the process begins to shut down. */
export function shutdownSignal(): AbortSignal {
  return lifecycle().controller.signal;
}

export function shuttingDown(): boolean {
  return shutdownSignal().aborted;
}

/**
 * Calls `callback` once when the process begins to shut down (at once, if it has); the function
 * returned takes it back. For the open phone connections, thousands of them: a Set adds and removes
 * one in constant time, where the signal's listeners are a list that each add and remove walks.
 */
export function onShutdown(callback: () => void): () => void {
  const state = lifecycle();
  const signal = state.controller.signal;
  if (signal.aborted) {
    callback();
    return () => {};
  }
  if (state.shutdownCallbacks?.signal !== signal) {
    const callbacks = new Set<() => void>();
    state.shutdownCallbacks = { signal, callbacks };
    signal.addEventListener(
      'abort',
      () => {
        for (const call of [...callbacks]) call();
        callbacks.clear();
      },
      { once: true },
    );
  }
  const { callbacks } = state.shutdownCallbacks;
  callbacks.add(callback);
  return () => void callbacks.delete(callback);
}

/**
 * One signal that aborts when any of `signals` does or the process begins to shut down, and the
 * function that lets go of them once it is no longer needed (call it always). One AbortController
 * and a listener on each signal, where `AbortSignal.any` keeps weak references that every garbage
 * collection must visit, for as long as the shutdown's signal lives.
 */
export function untilShutdown(...signals: Array<AbortSignal | undefined>): {
  signal: AbortSignal;
  release: () => void;
} {
  const controller = new AbortController();
  const sources = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  const abort = () => controller.abort();
  if (sources.some((source) => source.aborted)) {
    abort();
    return { signal: controller.signal, release: () => {} };
  }
  for (const source of sources) source.addEventListener('abort', abort, { once: true });
  const stopWatching = onShutdown(abort);
  const release = () => {
    for (const source of sources) source.removeEventListener('abort', abort);
    stopWatching();
  };
  return { signal: controller.signal, release };
}

export function beginShutdown(): void {
  lifecycle().controller.abort();
}

/** Hands scripts/start.mjs the API's security headers and the paths whose answers carry them. */
export function offerApiHeaders(apiHeaders: NonNullable<Lifecycle['apiHeaders']>): void {
  lifecycle().apiHeaders = apiHeaders;
}

/** Hands scripts/serve.mjs the routes it serves without Next's router (lib/server/direct-routes.ts). */
export function offerDirectRoutes(router: DirectRouter, heldBodies: HeldBodies): void {
  lifecycle().directRoute = router;
  lifecycle().heldBodies = heldBodies;
}

/** Whether scripts/start.mjs drives the shutdown (and the app must not exit on signals itself). */
export function hostedByHttpServer(): boolean {
  return lifecycle().hostedByHttpServer === true;
}

/**
 * Runs a request's handler counted among those the shutdown waits for (lib/http/route.ts, for
 * every API route): the host waits for open answers too, but a client that hangs up closes its
 * answer while the handler may still be writing to the database, which is closed last.
 */
export async function handling<T>(work: () => Promise<T>): Promise<T> {
  const state = lifecycle();
  state.running = (state.running ?? 0) + 1;
  try {
    return await work();
  } finally {
    state.running -= 1;
    if (state.running === 0) state.onIdle?.();
  }
}

/** Tells the host the app has started (lib/server/start.ts): scripts/start.mjs says "ready" then. */
export function markStarted(): void {
  lifecycle().started = true;
  lifecycle().onStarted?.();
}

/** Whether the app has started (`markStarted`): configuration checked, database open and migrated. */
export function hasStarted(): boolean {
  return lifecycle().started === true;
}

/** Records whether this process runs the background work (lib/server/background.ts). */
export function markBackground(state: BackgroundState): void {
  lifecycle().background = state;
}

/** Whether this process runs the background work; undefined until it has been started or left off. */
export function backgroundState(): BackgroundState | undefined {
  return lifecycle().background;
}

/** Registers what the host calls last: stop the background work, close the database. */
export function setFinalStop(stop: () => Promise<void>): void {
  lifecycle().stop = stop;
}

/** Tests: a fresh, not aborted signal. */
export function resetShutdownForTests(): void {
  lifecycle().controller = new AbortController();
}

/** Tests: an app that has not started, and whose background work is undecided. */
export function resetStartForTests(): void {
  lifecycle().started = undefined;
  lifecycle().background = undefined;
}
