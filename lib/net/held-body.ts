import type { HeldBodies } from '@/lib/runtime/lifecycle';

/**
 * Requests and answers whose body is held as it is (bytes, or the text of a JSON document) rather
 * than as a web stream, until something asks for it. `npm start`'s direct lane (scripts/serve.mjs)
 * reads a small request body before calling the route, and most answers are one JSON document: each
 * web stream around such a body cost about 8 µs in Node's `makeTransferable` alone, before its reads.
 * route() takes a held request's bytes without a stream (lib/http/parse.ts `readCapped`), and the
 * lane writes a held answer's text with its headers in one write (`takeHeldBody`).
 *
 * They are a Request and a Response for everything else: `body`, `bodyUsed`, `text()`, `json()`,
 * `arrayBuffer()`, `blob()`, `bytes()`, `formData()` and `clone()` answer as for a body given to the
 * constructor (from a Response made of the same bytes, the first time one of them is asked), and a
 * body taken by `takeHeldBody` is used, as one read to its end is.
 */

type Held = {
  readonly bytes: Uint8Array | string | null;
  readonly headers: Headers;
  taken: boolean;
  /** The same body as a Response's, made the first time anything but `takeHeldBody` asks for it. */
  carrier?: Response;
};

const HELD = Symbol('held body');
const SIGNAL = Symbol('signal');
type Holder = { [HELD]: Held };

function carrierOf(held: Held): Response {
  if (!held.carrier) {
    held.carrier = new Response(held.bytes as BodyInit | null, { headers: held.headers });
    // Taken already: used, as a body read to its end is.
    if (held.taken) void held.carrier.arrayBuffer().catch(() => {});
  }
  return held.carrier;
}

const BODY_METHODS = ['arrayBuffer', 'blob', 'bytes', 'formData', 'json', 'text'] as const;

/** Puts the body's getters and readers of a held body on a Request's or a Response's subclass. */
function holdBodies(prototype: object): void {
  for (const name of BODY_METHODS) {
    Object.defineProperty(prototype, name, {
      value(this: Holder) {
        const carrier = carrierOf(this[HELD]) as unknown as Record<string, () => Promise<unknown>>;
        return carrier[name]?.call(carrier) ?? Promise.reject(new TypeError(`${name}() is not supported here`));
      },
      writable: true,
      configurable: true,
    });
  }
  Object.defineProperty(prototype, 'body', {
    get(this: Holder) {
      return this[HELD].bytes === null ? null : carrierOf(this[HELD]).body;
    },
    configurable: true,
  });
  Object.defineProperty(prototype, 'bodyUsed', {
    get(this: Holder) {
      const held = this[HELD];
      return held.carrier ? held.carrier.bodyUsed : held.taken;
    },
    configurable: true,
  });
}

function unused(held: Held, what: string): void {
  if (held.taken || held.carrier?.bodyUsed) throw new TypeError(`${what}.clone: the body has already been read`);
}

/** A web Request whose body is `bytes` (null: none), held until read; its signal is `signal()`'s. */
class HeldRequest extends Request {
  readonly [HELD]: Held;
  readonly [SIGNAL]: () => AbortSignal;

  constructor(url: string, init: RequestInit, bytes: Uint8Array | null, signal: () => AbortSignal) {
    super(url, init);
    this[HELD] = { bytes, headers: this.headers, taken: false };
    this[SIGNAL] = signal;
  }

  override clone(): Request {
    const held = this[HELD];
    unused(held, 'Request');
    return new HeldRequest(
      this.url,
      { method: this.method, headers: this.headers },
      held.bytes as Uint8Array | null,
      this[SIGNAL],
    );
  }
}
holdBodies(HeldRequest.prototype);
// The host's signal, made only when a route asks for it (a long-poll, an event stream).
Object.defineProperty(HeldRequest.prototype, 'signal', {
  get(this: HeldRequest) {
    return this[SIGNAL]();
  },
  configurable: true,
});

/** A Response whose body is `text`, held until read or taken by the host. */
class HeldResponse extends Response {
  readonly [HELD]: Held;

  constructor(text: string, init: ResponseInit) {
    super(null, init);
    this[HELD] = { bytes: text, headers: this.headers, taken: false };
  }

  override clone(): Response {
    const held = this[HELD];
    unused(held, 'Response');
    return new HeldResponse(held.bytes as string, {
      status: this.status,
      statusText: this.statusText,
      headers: this.headers,
    });
  }
}
holdBodies(HeldResponse.prototype);

/** An answer whose body is `text` (a JSON document, say), held until read: see the module's comment. */
export function heldResponse(text: string, init: ResponseInit): Response {
  return new HeldResponse(text, init);
}

/**
 * The held body of a request or an answer, when nothing has read it yet; the body is then used. For
 * anything else, undefined: read its `body` as usual.
 */
export function takeHeldBody(message: Request | Response): Uint8Array | string | undefined {
  const held = (message as Partial<Holder>)[HELD];
  if (!held || held.taken || held.carrier || held.bytes === null) return undefined;
  held.taken = true;
  return held.bytes;
}

/** What the direct lane uses of this module (lib/runtime/lifecycle.ts `HeldBodies`). */
export const heldBodies: HeldBodies = {
  request: (url, method, headers, bytes, signal) => new HeldRequest(url, { method, headers }, bytes, signal),
  take: takeHeldBody,
};
