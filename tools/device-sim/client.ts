/**
 * The HTTP side of a simulated Android phone: the calls a real Simgate app makes, and nothing
 * else (no database access). `fetch` is injectable so tests can route it to handlers in process.
 */
export type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

export type WireMessage = {
  id: string;
  from: string;
  to: string;
  content: string;
  status: string;
  sim?: number | null;
};

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    readonly detail: string,
    readonly body: unknown,
  ) {
    super(`${status}${code ? ` ${code}` : ''}: ${detail}`);
    this.name = 'ApiError';
  }
}

export type ClientOptions = { baseUrl: string; deviceKey?: string; fetch?: Fetch };

export class DeviceClient {
  readonly baseUrl: string;
  deviceKey: string | undefined;
  private readonly fetch: Fetch;

  constructor(options: ClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.deviceKey = options.deviceKey;
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  registerDevice(input: { phoneNumber: string; countryCode?: string; label?: string }) {
    return this.request<{ device_id: string; status: string }>('POST', '/api/v1/phones/register-device', {
      body: { phone_number: input.phoneNumber, country_code: input.countryCode, label: input.label },
      auth: false,
    });
  }

  verifySim(deviceId: string, code: string) {
    return this.request<{ device_id: string; status: string; device_key: string }>(
      'POST',
      '/api/v1/phones/verify-sim',
      {
        body: { device_id: deviceId, code },
        auth: false,
      },
    );
  }

  requestBindCode(email: string) {
    return this.request<{ status: string }>('POST', '/api/v1/auth/bind/request-code', { body: { email } });
  }

  confirmBind(code: string) {
    return this.request<{ status: string; account_id: string }>('POST', '/api/v1/auth/bind/confirm', {
      body: { code },
    });
  }

  createApiKey(name: string) {
    return this.request<{ id: string; key: string; prefix: string }>('POST', '/api/v1/auth/api-keys', {
      body: { name },
    });
  }

  /** The newest code the dev inbox holds for a number or an email. */
  async latestCode(to: string, channel: 'sms' | 'email'): Promise<string | undefined> {
    const inbox = await this.request<{ data: { channel: string; code: string | null }[] }>(
      'GET',
      `/api/dev/inbox?to=${encodeURIComponent(to)}`,
      { auth: false },
    );
    return inbox.data.find((entry) => entry.channel === channel && entry.code)?.code ?? undefined;
  }

  heartbeat(phone: string, battery: number, status: 'online' | 'offline' = 'online', sims?: number) {
    return this.request<unknown>('POST', '/api/v1/heartbeats', { body: { phone, status, battery, sims } });
  }

  async claim(options: { limit: number; waitSeconds: number; signal?: AbortSignal }): Promise<WireMessage[]> {
    return (await this.claimWithCancels(options)).data;
  }

  /** The claim's whole answer: the messages claimed, and `cancel`, the ids of held ones to drop. */
  claimWithCancels(options: { limit: number; waitSeconds: number; signal?: AbortSignal }) {
    return this.request<{ data: WireMessage[]; cancel: string[] }>(
      'POST',
      `/api/v1/device/outbox/claim?wait=${options.waitSeconds}`,
      { body: { limit: options.limit }, signal: options.signal },
    );
  }

  reportStatus(messageId: string, status: 'sent' | 'delivered' | 'failed' | 'cancelled', error?: string) {
    return this.request<WireMessage>('POST', `/api/v1/device/messages/${encodeURIComponent(messageId)}/status`, {
      body: { status, error },
    });
  }

  receive(input: { from: string; content: string; deviceMessageId?: string; receivedAt?: Date }) {
    return this.request<WireMessage>('POST', '/api/v1/device/messages/received', {
      body: {
        from: input.from,
        content: input.content,
        device_message_id: input.deviceMessageId,
        received_at: input.receivedAt?.toISOString(),
      },
    });
  }

  private async request<T>(
    method: string,
    path: string,
    options: { body?: unknown; auth?: boolean; signal?: AbortSignal } = {},
  ): Promise<T> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    if (options.auth !== false) {
      if (!this.deviceKey) throw new Error('This device has no device key yet: register it first.');
      headers['x-api-key'] = this.deviceKey;
    }
    let res: Response;
    try {
      res = await this.fetch(`${this.baseUrl}${path}`, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: options.signal,
      });
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw new Error(`Cannot reach ${this.baseUrl} (${(error as Error).message}). Is the server running?`);
    }
    const text = await res.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      // Not JSON: keep the text for the error.
    }
    if (!res.ok) {
      const problem = (body ?? {}) as { code?: string; detail?: string };
      throw new ApiError(res.status, problem.code, problem.detail ?? String(text).slice(0, 200), body);
    }
    return body as T;
  }
}
