import { decryptSmsGate } from '@/components/crypto/smsgate-encryption';
import { sleep } from './run';
import {
  APP_VERSION,
  appDate,
  type ProcessingState,
  type PulledMessage,
  type RecipientReport,
  type ServerEvent,
  type SmsGateClient,
  type WebhookEvent,
} from './smsgate-client';

export type SmsGateRunOptions = {
  /** The SIM's own number: a message to it comes back as an inbound SMS (Simgate's SIM check). */
  phone: string;
  /** Share of messages that end `Failed` instead of `Delivered` (0..1). */
  failureRate: number;
  /** Pause before each report, as a real phone and carrier take time. */
  delayMs: number;
  /**
   * How long a pulled message waits in the app's queue (`Pending`) before it is sent: a cancel
   * (`MessageCancelled`, or `Cancelling` in a pull) in that time drops it and reports `Cancelled`.
   */
  holdMs?: number;
  /** Overrides the server's `ping.interval_seconds`; with neither, no `system:ping` is sent. */
  pingIntervalMs?: number;
  /** Starting battery level; it drains one point per ping and recharges at 15. */
  battery: number;
  /**
   * The phone's SMS inbox: what `MessagesExportRequested` sends again (each SMS within the
   * request's period as `sms:received`, as ReceiverService.export does). An SMS added here and
   * never emitted is one "received while the server could not be reached".
   */
  inbox?: InboxSms[];
  /**
   * The app's `encryption.passphrase`: a message pulled with `isEncrypted: true` has its text and
   * numbers decrypted with it before sending (MessagesService.kt); without it, or when it does not
   * open them, the message fails as in the app.
   */
  passphrase?: string;
  /** The app's `messages.processing_order`. */
  order?: 'lifo' | 'fifo';
  /** Pause before reconnecting the event stream or retrying a failed call (the app waits 5 s to 60 s). */
  retryMs?: number;
  signal: AbortSignal;
  random?: () => number;
  log?: (line: string) => void;
};

/** One SMS of the phone's inbox. */
export type InboxSms = { from: string; text: string; receivedAt: Date };

export type SmsGateRunStats = {
  pulled: number;
  delivered: number;
  /** Sent without a delivery report requested. */
  sent: number;
  failed: number;
  /** Messages to the phone's own number that came back as inbound SMS. */
  loopbacks: number;
  pings: number;
  connections: number;
  /** Messages it held and dropped when the server cancelled them. */
  cancelled: number;
  /** SMS sent again for `MessagesExportRequested`. */
  exported: number;
};

const GENERIC_FAILURE = 'Send result: RESULT_ERROR_GENERIC_FAILURE (Generic failure cause)';
/** A report is retried 10 times by `SendStateWorker`; a webhook `webhooks.retry_count` (15) times. */
const REPORT_ATTEMPTS = 10;
const WEBHOOK_ATTEMPTS = 15;
/** States in a pull that the app leaves alone; any other (or an unknown one, decoded as null) is sent. */
const SETTLED_STATES = new Set<string>(['Cancelled', 'Processed', 'Sent', 'Delivered', 'Failed']);

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/** Java's `String.hashCode` over UTF-16 code units. */
function javaHash(text: string): number {
  let hash = 0;
  for (let i = 0; i < text.length; i++) hash = (Math.imul(hash, 31) + text.charCodeAt(i)) | 0;
  return hash;
}

/**
 * The `messageId` of an `sms:received`: like the app's, a hex 32-bit hash of the SMS (sender,
 * date, SIM, text), the same for the same SMS, so a server can drop a repeated event.
 */
function inboxMessageId(sender: string, text: string, receivedAt: Date, simNumber = 1): string {
  const ms = BigInt(receivedAt.getTime());
  const dateHash = Number(BigInt.asIntN(32, ms ^ (ms >> 32n)));
  let hash = javaHash(sender);
  for (const part of [dateHash, simNumber, javaHash(text)]) hash = (Math.imul(hash, 31) + part) | 0;
  return (hash >>> 0).toString(16);
}

export function receivedPayload(input: { phone: string; from: string; text: string; receivedAt?: Date }) {
  const receivedAt = input.receivedAt ?? new Date();
  return {
    messageId: inboxMessageId(input.from, input.text, receivedAt),
    message: input.text,
    sender: input.from,
    phoneNumber: input.from,
    recipient: input.phone,
    simNumber: 1,
    receivedAt: appDate(receivedAt),
  };
}

/**
 * An SMS from `from` arrives on the phone: `sms:received` to the server's webhook. Throws when
 * the server registered no `sms:received` webhook, as the SMS would then never reach it.
 */
export async function inject(client: SmsGateClient, input: { phone: string; from: string; text: string }) {
  const payload = receivedPayload(input);
  if ((await client.emit('sms:received', payload)) === 0) {
    throw new Error('The server registered no sms:received webhook (GET /webhooks): the SMS goes nowhere.');
  }
  return payload;
}

function pingPayload(battery: number) {
  const level = battery < 10 ? 'fail' : battery < 25 ? 'warn' : 'pass';
  return {
    health: {
      version: APP_VERSION,
      releaseId: 1,
      status: level,
      checks: {
        'battery:level': {
          status: level,
          observedValue: battery,
          observedUnit: 'percent',
          description: 'Battery level in percent',
        },
        'battery:charging': {
          status: 'pass',
          observedValue: 0,
          observedUnit: 'flags',
          description: 'Is the phone charging?',
        },
      },
    },
  };
}

/** Rough SMS part count (GSM 160/153, else UCS-2 70/67), as `partsCount` in sent events. */
function partsCount(text: string | undefined): number {
  if (text === undefined) return 1;
  const [single, multi] = /^[\x20-\x7e\n\r]*$/.test(text) ? [160, 153] : [70, 67];
  return text.length <= single ? 1 : Math.ceil(text.length / multi);
}

/**
 * Work done one item at a time, each retried after a pause, as the app's WorkManager workers
 * do. Items still waiting when the run stops are dropped.
 */
class SerialQueue {
  private tail = Promise.resolve();

  constructor(
    private readonly options: Pick<SmsGateRunOptions, 'signal'> & { retryMs: number; log: (line: string) => void },
  ) {}

  push(what: string, attempts: number, work: () => Promise<void>): void {
    this.tail = this.tail.then(async () => {
      for (let attempt = 1; attempt <= attempts && !this.options.signal.aborted; attempt++) {
        try {
          return await work();
        } catch (error) {
          if (this.options.signal.aborted) return;
          this.options.log(`error: ${what} (attempt ${attempt}/${attempts}): ${messageOf(error)}`);
          await sleep(this.options.retryMs, this.options.signal);
        }
      }
    });
  }

  drain(): Promise<void> {
    return this.tail;
  }
}

type States = Partial<Record<ProcessingState, string>>;

/** One run of the simulated app: what it holds in memory, and how it reacts to the server. */
class SimulatedApp {
  readonly stats: SmsGateRunStats = {
    pulled: 0,
    delivered: 0,
    sent: 0,
    failed: 0,
    loopbacks: 0,
    pings: 0,
    connections: 0,
    cancelled: 0,
    exported: 0,
  };
  private readonly signal: AbortSignal;
  private readonly log: (line: string) => void;
  private readonly retryMs: number;
  /** Ids the app holds: like its local database, a pulled id is sent once however often it is pulled. */
  private readonly seen = new Set<string>();
  /** Ids pulled and not yet being sent (`Pending` in the app's database): the ones a cancel drops. */
  private readonly pending = new Map<string, PulledMessage>();
  private readonly reports: SerialQueue;
  private readonly webhooks: SerialQueue;
  private readonly sending: SerialQueue;
  private readonly background = new Set<Promise<void>>();
  private battery: number;
  private pulling = false;
  private pullAgain = false;

  constructor(
    private readonly client: SmsGateClient,
    private readonly options: SmsGateRunOptions,
  ) {
    this.signal = options.signal;
    this.log = options.log ?? (() => {});
    this.retryMs = options.retryMs ?? 1000;
    this.battery = options.battery;
    const queue = { signal: this.signal, retryMs: this.retryMs, log: this.log };
    this.reports = new SerialQueue(queue);
    this.webhooks = new SerialQueue(queue);
    this.sending = new SerialQueue(queue);
  }

  async run(): Promise<SmsGateRunStats> {
    await this.refresh('settings');
    await this.refresh('webhooks');
    const pingIntervalMs = this.options.pingIntervalMs ?? (this.client.pingIntervalSeconds ?? 0) * 1000;
    if (pingIntervalMs > 0) this.track(() => this.pingEvery(pingIntervalMs));
    else this.log('no ping.interval_seconds in the settings: no system:ping');
    await this.followEvents();
    while (this.background.size > 0) await Promise.all([...this.background]);
    await this.sending.drain();
    await Promise.all([this.reports.drain(), this.webhooks.drain()]);
    return this.stats;
  }

  /** `SSEManager`: pull on open and on MessageEnqueued; reconnect whenever the stream ends or fails. */
  private async followEvents(): Promise<void> {
    while (!this.signal.aborted) {
      try {
        const stream = await this.client.events(this.signal);
        this.stats.connections += 1;
        this.log('events: connected');
        this.pull();
        for await (const event of stream) this.onEvent(event);
        if (!this.signal.aborted) this.log('events: closed by the server');
      } catch (error) {
        if (this.signal.aborted) break;
        this.log(`error: GET /events: ${messageOf(error)}`);
      }
      await sleep(this.retryMs, this.signal);
    }
  }

  private onEvent(event: ServerEvent): void {
    if (event.type === 'MessageEnqueued') this.pull();
    else if (event.type === 'WebhooksUpdated') this.track(() => this.refresh('webhooks'));
    else if (event.type === 'SettingsUpdated') this.track(() => this.refresh('settings'));
    else if (event.type === 'MessageCancelled') this.onMessageCancelled(event.data);
    else if (event.type === 'MessagesExportRequested') this.exportInbox(event.data);
    else this.log(`Unknown event type: ${event.type}`);
  }

  /** `EventsReceiver`: MessageCancelledEvent.withPayload(`{"messageId": …}`); an unknown id is ignored. */
  private onMessageCancelled(data: string): void {
    let messageId: unknown;
    try {
      messageId = (JSON.parse(data) as { messageId?: unknown } | null)?.messageId;
    } catch {
      messageId = undefined;
    }
    if (typeof messageId !== 'string') {
      this.log(`error: MessageCancelled without a messageId: ${data}`);
      return;
    }
    this.cancel(messageId);
  }

  /**
   * `MessagesService.cancelMessage`: only a Pending message is cancelled (and `Cancelled` reported);
   * one already being sent, or sent, stays as it is, and its own reports follow.
   */
  private cancel(messageId: string): void {
    const message = this.pending.get(messageId);
    if (!message) return;
    this.pending.delete(messageId);
    this.stats.cancelled += 1;
    this.report(message, 'Cancelled', { Cancelled: appDate(new Date()) });
    this.log(`cancelled: ${messageId}`);
  }

  /**
   * `ReceiverService.export`: every SMS of the inbox received within [since, until] again as
   * `sms:received` (with the same `messageId`), when `messageTypes` holds SMS and
   * `triggerWebhooks` is on; the data as MessagesExportRequestedEvent.Payload reads it.
   */
  private exportInbox(data: string): void {
    let request: { since?: string; until?: string; messageTypes?: string; triggerWebhooks?: boolean };
    try {
      request = JSON.parse(data);
    } catch {
      this.log(`error: MessagesExportRequested: data is not JSON: ${data}`);
      return;
    }
    const since = new Date(request.since ?? '');
    const until = new Date(request.until ?? '');
    if (Number.isNaN(since.getTime()) || Number.isNaN(until.getTime())) {
      this.log(`error: MessagesExportRequested: no since/until in ${data}`);
      return;
    }
    const types = (request.messageTypes ?? 'SMS').split(',');
    if (!types.includes('SMS') || request.triggerWebhooks === false) {
      this.log(`export: nothing to send for ${data}`);
      return;
    }
    const { phone } = this.options;
    for (const sms of this.options.inbox ?? []) {
      if (sms.receivedAt < since || sms.receivedAt > until) continue;
      this.emit('sms:received', receivedPayload({ phone, from: sms.from, text: sms.text, receivedAt: sms.receivedAt }));
      this.stats.exported += 1;
    }
    this.log(`export: ${this.stats.exported} SMS sent again so far`);
  }

  private async refresh(what: 'settings' | 'webhooks'): Promise<void> {
    while (!this.signal.aborted) {
      try {
        if (what === 'settings') await this.client.settings();
        else await this.client.webhooks();
        return;
      } catch (error) {
        if (this.signal.aborted) return;
        this.log(`error: GET /${what}: ${messageOf(error)}`);
        await sleep(this.retryMs, this.signal);
      }
    }
  }

  /** One pull at a time; a trigger during a pull makes one more, as the app's unique work does. */
  private pull(): void {
    if (this.pulling) {
      this.pullAgain = true;
      return;
    }
    this.pulling = true;
    this.track(async () => {
      try {
        do {
          this.pullAgain = false;
          try {
            for (const message of await this.client.pull(this.options.order ?? 'lifo')) this.take(message);
          } catch (error) {
            if (this.signal.aborted) return;
            this.log(`error: GET /message: ${messageOf(error)}`);
            await sleep(this.retryMs, this.signal);
            this.pullAgain = true;
          }
        } while (this.pullAgain && !this.signal.aborted);
      } finally {
        this.pulling = false;
      }
    });
  }

  private take(message: PulledMessage): void {
    if (message.state === 'Cancelling' && this.seen.has(message.id)) {
      this.cancel(message.id);
      return;
    }
    if (this.seen.has(message.id) || SETTLED_STATES.has(message.state ?? '')) return;
    this.seen.add(message.id);
    if (message.state === 'Cancelling') {
      // GatewayService.processMessage: not found locally, so never sent: Cancelled at once.
      this.report(message, 'Cancelled', { Cancelled: appDate(new Date()) });
      this.stats.cancelled += 1;
      this.log(`cancelled: ${message.id}`);
      return;
    }
    this.stats.pulled += 1;
    this.pending.set(message.id, message);
    this.sending.push(`send ${message.id}`, 1, () => this.send(message));
  }

  private async send(message: PulledMessage): Promise<void> {
    await sleep(this.options.holdMs ?? 0, this.signal);
    // Cancelled while it waited, or the run stopped.
    if (!this.pending.delete(message.id) || this.signal.aborted) return;
    const clear = await this.decrypted(message);
    const text = clear.text;
    if (text === undefined && !message.dataMessage) {
      this.log(`error: ${message.id}: Invalid message content`);
      return;
    }
    const recipients = clear.numbers.join(', ');
    const states: States = { Pending: appDate(new Date()), Processed: appDate(new Date()) };
    if (clear.error) {
      states.Failed = appDate(new Date());
      this.report(message, 'Failed', states, clear.error);
      this.stats.failed += 1;
      this.log(`failed: ${message.id}: ${clear.error}`);
      return;
    }
    this.report(message, 'Processed', states);
    await sleep(this.options.delayMs, this.signal);
    if (this.signal.aborted) return;
    if ((this.options.random ?? Math.random)() < this.options.failureRate) {
      states.Failed = appDate(new Date());
      this.report(message, 'Failed', states);
      this.emitPerRecipient('sms:failed', message, { failedAt: states.Failed, reason: GENERIC_FAILURE });
      this.stats.failed += 1;
      this.log(`failed: ${message.id} to ${recipients}`);
      return;
    }
    states.Sent = appDate(new Date());
    this.emitPerRecipient('sms:sent', message, { sentAt: states.Sent });
    this.report(message, 'Sent', states);
    if (message.withDeliveryReport === false) {
      this.stats.sent += 1;
      this.log(`sent: ${message.id} to ${recipients}`);
    } else {
      await sleep(this.options.delayMs, this.signal);
      if (this.signal.aborted) return;
      states.Delivered = appDate(new Date());
      this.emitPerRecipient('sms:delivered', message, { deliveredAt: states.Delivered });
      this.report(message, 'Delivered', states);
      this.stats.delivered += 1;
      this.log(`delivered: ${message.id} to ${recipients}`);
    }
    const { phone } = this.options;
    if (text !== undefined && clear.numbers.some((to) => sameNumber(to, phone))) {
      this.emit('sms:received', receivedPayload({ phone, from: phone, text }));
      this.stats.loopbacks += 1;
      this.log(`received: ${message.id} came back to ${phone}`);
    }
  }

  /** The text and numbers as the app sends them: an encrypted message decrypted with the passphrase. */
  private async decrypted(message: PulledMessage): Promise<{ text?: string; numbers: string[]; error?: string }> {
    const text = textOf(message);
    if (!message.isEncrypted) return { text, numbers: message.phoneNumbers };
    const { passphrase } = this.options;
    if (passphrase === undefined) return { text, numbers: message.phoneNumbers, error: 'Passphrase is not set' };
    try {
      return {
        text: text === undefined ? undefined : await decryptSmsGate(text, passphrase),
        numbers: await Promise.all(message.phoneNumbers.map((number) => decryptSmsGate(number, passphrase))),
      };
    } catch (error) {
      return { text, numbers: message.phoneNumbers, error: `Decryption failed: ${messageOf(error)}` };
    }
  }

  /** `SendStateWorker`: one report per PATCH, with every state time the app has recorded. */
  private report(message: PulledMessage, state: ProcessingState, states: States, error = GENERIC_FAILURE): void {
    const recipients: RecipientReport[] = message.phoneNumbers.map((phoneNumber) =>
      state === 'Failed' ? { phoneNumber, state, error } : { phoneNumber, state },
    );
    const body = [{ id: message.id, state, recipients, states: { ...states } }];
    this.reports.push(`PATCH /message ${message.id} ${state}`, REPORT_ATTEMPTS, () => this.client.patchStates(body));
  }

  /** Queues `event` for each webhook registered for it; returns how many. */
  private emit(event: WebhookEvent, payload: unknown): number {
    const deliveries = this.client.webhookDeliveries(event, payload);
    for (const { url, delivery } of deliveries) {
      this.webhooks.push(`webhook ${event}`, WEBHOOK_ATTEMPTS, () => this.client.postWebhook(url, delivery));
    }
    return deliveries.length;
  }

  /** One webhook per recipient, as the app's `webhooks/EventsReceiver` emits them. */
  private emitPerRecipient(event: WebhookEvent, message: PulledMessage, extra: Record<string, unknown>): void {
    for (const recipient of message.phoneNumbers) {
      this.emit(event, {
        messageId: message.id,
        phoneNumber: recipient,
        recipient,
        sender: this.options.phone,
        simNumber: message.simNumber ?? 1,
        partsCount: partsCount(textOf(message)),
        ...extra,
      });
    }
  }

  private async pingEvery(intervalMs: number): Promise<void> {
    while (!this.signal.aborted) {
      if (this.emit('system:ping', pingPayload(this.battery)) > 0) {
        this.stats.pings += 1;
        this.log(`ping: battery ${this.battery}%`);
      }
      this.battery = this.battery <= 15 ? 100 : this.battery - 1;
      this.pull();
      await sleep(intervalMs, this.signal);
    }
  }

  /** Runs work beside the event stream; the run waits for it before it returns. */
  private track(work: () => Promise<void>): void {
    const running: Promise<void> = work()
      .catch((error) => {
        if (!this.signal.aborted) this.log(`error: ${messageOf(error)}`);
      })
      .finally(() => this.background.delete(running));
    this.background.add(running);
  }
}

/**
 * The SMSGate app's main loop, SSE-only, until `signal` aborts: settings and webhooks, the event
 * stream (reconnected after `retryMs`), a pull on connect and on every MessageEnqueued, and for
 * each new message Processed → Sent → Delivered (or Failed) state reports with their webhooks;
 * `system:ping` with a draining battery. A message to the phone's own number comes back as an
 * `sms:received`, as the SIM check a server sends expects.
 */
export function runSmsGateApp(client: SmsGateClient, options: SmsGateRunOptions): Promise<SmsGateRunStats> {
  return new SimulatedApp(client, options).run();
}

function textOf(message: PulledMessage): string | undefined {
  if (message.dataMessage) return undefined;
  return message.textMessage?.text ?? message.message ?? undefined;
}

function sameNumber(a: string, b: string): boolean {
  return a.replace(/\D/g, '') === b.replace(/\D/g, '');
}
