import type { RouteHandler } from '@/lib/http/route';

export type CallOptions = {
  method?: string;
  path?: string;
  /** Sent as JSON with Content-Type: application/json. */
  body?: unknown;
  /** Sent as is (for malformed bodies); set the content type yourself. */
  rawBody?: BodyInit;
  headers?: Record<string, string>;
  /** X-API-Key header. */
  apiKey?: string;
  params?: Record<string, string>;
};

export type CallResult<T = any> = {
  status: number;
  headers: Headers;
  contentType: string;
  body: T;
  text: string;
};

/** Calls a route handler in-process with a real `Request`, as Next would. */
export async function call<T = any>(handler: RouteHandler, options: CallOptions = {}): Promise<CallResult<T>> {
  const method = options.method ?? (options.body !== undefined || options.rawBody !== undefined ? 'POST' : 'GET');
  const headers = new Headers(options.headers);
  let body: BodyInit | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
  }
  if (options.apiKey) headers.set('x-api-key', options.apiKey);
  // A streamed body needs `duplex: 'half'` in Node's Request.
  const init = { method, headers, body, ...(body instanceof ReadableStream ? { duplex: 'half' } : {}) };
  const req = new Request(new URL(options.path ?? '/', 'http://localhost:3000'), init as RequestInit);
  const res = await handler(req, { params: Promise.resolve(options.params ?? {}) });
  const text = await res.text();
  const contentType = res.headers.get('content-type') ?? '';
  let parsed: unknown = text;
  if (contentType.includes('json') && text) parsed = JSON.parse(text);
  return { status: res.status, headers: res.headers, contentType, body: parsed as T, text };
}

/** The header npm start's server adds to every request: it came in on a socket from `address`. */
export function fromSocket(address: string): Record<string, string> {
  return { 'x-simgate-peer': `${process.env.SIMGATE_PEER_TOKEN} ${address}` };
}
