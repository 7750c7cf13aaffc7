/**
 * The HTTP side of the SMSGate Android app (capcom6/android-sms-gateway 1.40) talking to its
 * "private server": the calls the unmodified app makes, with its headers, JSON quirks (Gson) and
 * webhook signatures, and nothing else (no database access). `fetch` is injectable so tests can
 * route it to handlers in process.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { ApiError, type Fetch } from './client';

export const APP_VERSION = '1.40.0';
const USER_AGENT = `me.capcom.smsgateway/${APP_VERSION}`;

export type ProcessingState = 'Pending' | 'Cancelling' | 'Cancelled' | 'Processed' | 'Sent' | 'Delivered' | 'Failed';

export type WebhookEvent =
  | 'sms:received'
  | 'sms:sent'
  | 'sms:delivered'
  | 'sms:failed'
  | 'sms:cancelled'
  | 'sms:data-received'
  | 'mms:received'
  | 'mms:downloaded'
  | 'system:ping'
  | 'app:started';

/** What the app reads from a SIM; numbers are full here and redacted on the wire. */
export type SimCardInfo = {
  slotIndex: number;
  phoneNumber?: string;
  carrierName?: string;
  iccid?: string;
};

export type Registration = { id: string; token: string; login: string; password?: string };

export type AppSettings = {
  gateway?: { notification_channel?: 'AUTO' | 'SSE_ONLY' | null };
  ping?: { interval_seconds?: number | string | null };
  webhooks?: { signing_key?: string | null; retry_count?: number; internet_required?: boolean };
  [section: string]: unknown;
};

export type AppWebhook = { id: string; url: string; event: WebhookEvent };

export type PulledMessage = {
  id: string;
  textMessage?: { text: string } | null;
  dataMessage?: { data: string; port: number } | null;
  message?: string | null;
  phoneNumbers: string[];
  simNumber?: number | null;
  withDeliveryReport?: boolean | null;
  isEncrypted?: boolean | null;
  validUntil?: string | null;
  scheduleAt?: string | null;
  createdAt?: string | null;
  priority?: number | null;
  state?: ProcessingState | null;
};

export type RecipientReport = { phoneNumber: string; state: ProcessingState; error?: string };

export type StateReport = {
  id: string;
  state: ProcessingState;
  recipients: RecipientReport[];
  states: Partial<Record<ProcessingState, string>>;
};

/** One server-sent event as okhttp-sse hands it over; a missing `event:` line means MessageEnqueued. */
export type ServerEvent = { type: string; data: string };

/** The event body the app POSTs to a webhook URL. */
export type WebhookDelivery = {
  id: string;
  webhookId: string;
  event: WebhookEvent;
  deviceId: string;
  payload: unknown;
};

export type SmsGateClientOptions = {
  /** The server address typed into the app, e.g. `http://127.0.0.1:3000/api/mobile/v1`. */
  baseUrl: string;
  token?: string;
  deviceId?: string;
  signingKey?: string;
  fetch?: Fetch;
};

/** `yyyy-MM-dd'T'HH:mm:ss.SSSXXX` for a phone whose zone is UTC. */
export function appDate(date: Date): string {
  return date.toISOString();
}

/** `GatewayService.redact`: all but the last 4 characters become `*`; 4 or fewer become `****`. */
export function redact(value: string): string {
  return value.length <= 4 ? '****' : `${'*'.repeat(value.length - 4)}${value.slice(-4)}`;
}

const GSON_ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '=': '\\u003d',
  "'": '\\u0027',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/**
 * JSON as Gson writes it by default: nulls omitted, HTML-sensitive characters escaped. Those
 * characters only occur inside strings, so escaping the whole text is safe.
 */
export function gsonJson(value: unknown): string {
  const text = JSON.stringify(value, (_key, field) => (field === null ? undefined : field));
  return text.replace(/[<>&='\u2028\u2029]/g, (char) => GSON_ESCAPES[char]!);
}

const NANOID_ALPHABET = 'useandom-26T198340PX75pxJACKVERYMINDBUSHWOLF_GQZbfghjklqvwyzrict';

/** A 21-character nanoid, as the app gives every webhook event. */
export function nanoid(size = 21): string {
  const bytes = randomBytes(size);
  let id = '';
  for (const byte of bytes) id += NANOID_ALPHABET[byte & 63];
  return id;
}

/** `X-Signature`: hex HMAC-SHA256 under the UTF-8 signing key over body text + timestamp. */
export function signWebhook(signingKey: string, body: string, timestamp: string): string {
  return createHmac('sha256', signingKey)
    .update(body + timestamp)
    .digest('hex');
}

export class SmsGateClient {
  readonly baseUrl: string;
  token: string | undefined;
  deviceId: string | undefined;
  signingKey: string | undefined;
  pingIntervalSeconds: number | undefined;
  webhookList: AppWebhook[] = [];
  private readonly fetch: Fetch;

  constructor(options: SmsGateClientOptions) {
    // Used as typed, as the app does: a trailing slash gives `…/v1//device` there too.
    this.baseUrl = options.baseUrl;
    this.token = options.token;
    this.deviceId = options.deviceId;
    this.signingKey = options.signingKey;
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** Sign in by code: `Authorization: Code <code>`; SIM numbers, carriers and ICCIDs redacted. */
  async register(input: { code: string; name: string; simCards: SimCardInfo[] }): Promise<Registration> {
    const registration = await this.request<Registration>('POST', '/device', {
      authorization: `Code ${input.code}`,
      body: { name: input.name, simCards: input.simCards.map(wireSimCard) },
      expect: 'json',
    });
    if (!registration?.id || !registration.token || !registration.login) {
      throw new Error(`POST /device answered without id, token or login: ${JSON.stringify(registration)}`);
    }
    this.token = registration.token;
    this.deviceId = registration.id;
    return registration;
  }

  async settings(): Promise<AppSettings> {
    const settings = await this.request<AppSettings>('GET', '/settings', { expect: 'json' });
    const signingKey = settings.webhooks?.signing_key;
    if (typeof signingKey === 'string') this.signingKey = signingKey;
    const interval = Number(settings.ping?.interval_seconds);
    this.pingIntervalSeconds = Number.isFinite(interval) && interval > 0 ? Math.trunc(interval) : undefined;
    return settings;
  }

  /** Replaces the webhooks the app holds, as `WebHooksService.sync` does. */
  async webhooks(): Promise<AppWebhook[]> {
    const list = await this.request<AppWebhook[]>('GET', '/webhooks', { expect: 'json' });
    if (!Array.isArray(list)) throw new Error(`GET /webhooks answered ${JSON.stringify(list)}, not an array`);
    for (const webhook of list) {
      if (!webhook.id || !webhook.url || !webhook.event) {
        throw new Error(`GET /webhooks answered an entry the app rejects: ${JSON.stringify(webhook)}`);
      }
    }
    this.webhookList = list;
    return list;
  }

  async pull(order: 'lifo' | 'fifo' = 'lifo'): Promise<PulledMessage[]> {
    const messages = await this.request<PulledMessage[]>('GET', `/message?order=${order}`, { expect: 'json' });
    if (!Array.isArray(messages)) throw new Error(`GET /message answered ${JSON.stringify(messages)}, not an array`);
    return messages;
  }

  async patchStates(reports: StateReport[]): Promise<void> {
    await this.request('PATCH', '/message', { body: reports });
  }

  async patchDevice(input: { pushToken?: string; simCards: SimCardInfo[] }): Promise<void> {
    await this.request('PATCH', '/device', {
      body: { id: this.requireDeviceId(), pushToken: input.pushToken, simCards: input.simCards.map(wireSimCard) },
    });
  }

  getDevice(): Promise<{ externalIp?: string; device?: unknown }> {
    return this.request('GET', '/device', {
      expect: 'json',
      authorization: this.token ? `Bearer ${this.token}` : null,
    });
  }

  /**
   * Opens `GET /events`. Resolves once the server answered 2xx with `text/event-stream` (the
   * app's `onOpen`), to the stream of events; otherwise rejects (`onFailure`). The stream ends
   * when the server closes it or `signal` aborts.
   */
  async events(signal: AbortSignal): Promise<AsyncIterable<ServerEvent>> {
    const res = await this.send('GET', `${this.baseUrl}/events`, {
      headers: { authorization: `Bearer ${this.requireToken()}`, accept: 'text/event-stream' },
      signal,
    });
    if (!res.ok) throw await errorOf(res);
    const contentType = res.headers.get('content-type') ?? '';
    if (!contentType.startsWith('text/event-stream')) {
      await res.body?.cancel();
      throw new Error(`GET /events answered ${res.status} with Content-Type "${contentType}"; okhttp-sse fails it`);
    }
    if (!res.body) throw new Error('GET /events answered without a body');
    return readServerEvents(res.body, signal);
  }

  /**
   * The events the app queues for `event`: one per webhook the server registered for it, each
   * with its own id, which stays the same on every retry.
   */
  webhookDeliveries(event: WebhookEvent, payload: unknown): { url: string; delivery: WebhookDelivery }[] {
    return this.webhookList
      .filter((webhook) => webhook.event === event)
      .map((webhook) => ({
        url: webhook.url,
        delivery: { id: nanoid(), webhookId: webhook.id, event, deviceId: this.requireDeviceId(), payload },
      }));
  }

  /** One attempt at a webhook event: Gson body, signed with a fresh timestamp. */
  async postWebhook(url: string, delivery: WebhookDelivery): Promise<void> {
    // Never given a key, the app makes one up, and the server cannot verify anything it signs.
    this.signingKey ??= nanoid(8);
    const body = gsonJson(delivery);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const res = await this.send('POST', url, {
      headers: {
        accept: 'application/json',
        'content-type': 'application/json',
        'x-timestamp': timestamp,
        'x-signature': signWebhook(this.signingKey, body, timestamp),
      },
      body,
    });
    if (!res.ok) throw await errorOf(res);
    await res.body?.cancel();
  }

  /** Sends `event` once to each webhook registered for it; returns how many (0: the app sends nothing). */
  async emit(event: WebhookEvent, payload: unknown): Promise<number> {
    const deliveries = this.webhookDeliveries(event, payload);
    for (const { url, delivery } of deliveries) await this.postWebhook(url, delivery);
    return deliveries.length;
  }

  private requireToken(): string {
    if (!this.token) throw new Error('This app is not registered yet: register it with a pairing code first.');
    return this.token;
  }

  private requireDeviceId(): string {
    if (!this.deviceId) throw new Error('This app has no device id yet: register it with a pairing code first.');
    return this.deviceId;
  }

  private async request<T>(
    method: string,
    path: string,
    /** `Authorization` value; default the device token as Bearer, `null` for none. */
    options: { body?: unknown; authorization?: string | null; expect?: 'json' } = {},
  ): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    const authorization = options.authorization === undefined ? `Bearer ${this.requireToken()}` : options.authorization;
    if (authorization) headers.authorization = authorization;
    let body: string | undefined;
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = gsonJson(options.body);
    }
    const res = await this.send(method, `${this.baseUrl}${path}`, { headers, body });
    if (!res.ok) throw await errorOf(res);
    if (options.expect !== 'json') {
      await res.body?.cancel();
      return undefined as T;
    }
    // Ktor's ContentNegotiation decodes only a JSON content type; anything else fails `.body()`.
    const contentType = res.headers.get('content-type') ?? '';
    const text = await res.text();
    if (!contentType.startsWith('application/json')) {
      throw new Error(
        `${method} ${path} answered ${res.status} with Content-Type "${contentType}"; the app cannot decode it`,
      );
    }
    return JSON.parse(text) as T;
  }

  private async send(
    method: string,
    url: string,
    init: { headers: Record<string, string>; body?: string; signal?: AbortSignal },
  ): Promise<Response> {
    try {
      return await this.fetch(url, {
        method,
        headers: { ...init.headers, 'user-agent': USER_AGENT },
        body: init.body,
        signal: init.signal,
      });
    } catch (error) {
      if (init.signal?.aborted) throw error;
      throw new Error(`Cannot reach ${url} (${(error as Error).message}). Is the server running?`);
    }
  }
}

function wireSimCard(card: SimCardInfo) {
  return {
    slotIndex: card.slotIndex,
    simNumber: card.slotIndex + 1,
    phoneNumber: card.phoneNumber && redact(card.phoneNumber),
    carrierName: card.carrierName && redact(card.carrierName),
    iccid: card.iccid && redact(card.iccid),
  };
}

async function errorOf(res: Response): Promise<ApiError> {
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    // Not JSON: keep the text for the error.
  }
  const problem = (typeof body === 'object' && body ? body : {}) as {
    code?: string;
    detail?: string;
    message?: string;
  };
  return new ApiError(res.status, problem.code, problem.detail ?? problem.message ?? text.slice(0, 200), body);
}

/**
 * okhttp's `ServerSentEventReader`: lines end in LF, CR or CRLF; `field: value` drops one space
 * after the colon; lines starting with `:` are comments; at a blank line an event is dispatched
 * only if a `data` line was seen, and its data lines are joined by LF.
 */
async function* readServerEvents(body: ReadableStream<Uint8Array>, signal: AbortSignal): AsyncGenerator<ServerEvent> {
  const reader = body.getReader();
  const stop = () => void reader.cancel().catch(() => {});
  signal.addEventListener('abort', stop, { once: true });
  const decoder = new TextDecoder();
  let buffer = '';
  let type: string | undefined;
  let data: string[] | undefined;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      for (;;) {
        const end = buffer.search(/\r\n|\r|\n/);
        // A CR at the very end may be the first half of CRLF: wait for the next chunk.
        if (end === -1 || (buffer[end] === '\r' && end === buffer.length - 1)) break;
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + (buffer.startsWith('\r\n', end) ? 2 : 1));
        if (line === '') {
          if (data) yield { type: type ?? 'MessageEnqueued', data: data.join('\n') };
          type = undefined;
          data = undefined;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        let fieldValue = colon === -1 ? '' : line.slice(colon + 1);
        if (fieldValue.startsWith(' ')) fieldValue = fieldValue.slice(1);
        if (field === 'data') data = [...(data ?? []), fieldValue];
        else if (field === 'event') type = fieldValue;
      }
    }
  } finally {
    signal.removeEventListener('abort', stop);
    stop();
  }
}
