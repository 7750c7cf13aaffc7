import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { APP_VERSION } from '@/lib/version';

/**
 * The Prometheus metrics, each defined once: names, types and labels are a contract that
 * deploy/grafana and deploy/prometheus (and operators' own dashboards) rely on. docs/operating.md
 * ("Metrics") lists them and says which are per instance and which describe the whole database.
 *
 * Labels hold only bounded values (a route's template, a state, a kind): never a phone number, an
 * address, a key, a message's text or an account id.
 */

/** The surfaces a request (and an accepted message) comes through. */
export const SURFACES = ['v1', 'mobile', '3rdparty', 'twilio', 'mcp', 'dashboard'] as const;
export type Surface = (typeof SURFACES)[number];

/**
 * Where an accepted message came from: an API (`v1`, `3rdparty`, `twilio`), a door for other software
 * (`mcp`, `email`, `smpp`: docs/doors.md), automation (rule replies, HELP, webhook replies), or the service
 * itself (`system`: verification codes, opt-out confirmations).
 */
export const SENDING_SURFACES = ['v1', '3rdparty', 'twilio', 'mcp', 'email', 'smpp'] as const;
export type SendingSurface = (typeof SENDING_SURFACES)[number];
export type AcceptedSurface = SendingSurface | 'automation' | 'system';

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** A message's wait: from seconds (a phone online) to a day (one offline, a schedule). */
const MESSAGE_WAIT = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 3 * 3600, 12 * 3600, 86_400];
const WEBHOOK_POST = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const TASK_RUN = [0.005, 0.025, 0.1, 0.5, 1, 5, 15, 60, 300];

/**
 * Which of `npm start`'s web processes this is: 0 to WEB_CONCURRENCY - 1, a replacement taking the slot of
 * the one it replaces (scripts/serve.mjs); 0 when it runs alone.
 */
const WEB_PROCESS = process.env.SIMGATE_WEB_PROCESS ?? '0';

function define(registry: Registry) {
  const registers = [registry];
  // prom-client's own p99 (nodejs_eventloop_lag_p99_seconds) is averaged over the web processes by the
  // cluster's sum: this one keeps each process's, as the same 10 ms-resolution histogram read per scrape.
  const eventLoopDelay = monitorEventLoopDelay({ resolution: 10 });
  eventLoopDelay.enable();
  return {
    httpRequests: new Counter({
      name: 'simgate_http_requests_total',
      help: 'HTTP requests answered by the API routes, by surface, route template, method and status class.',
      labelNames: ['surface', 'route', 'method', 'status'] as const,
      registers,
    }),
    httpDuration: new Histogram({
      name: 'simgate_http_request_duration_seconds',
      help: 'Time to answer an API request (to the start of the answer), by surface, route template and method.',
      labelNames: ['surface', 'route', 'method'] as const,
      buckets: SECONDS,
      registers,
    }),
    messagesAccepted: new Counter({
      name: 'simgate_messages_accepted_total',
      help: 'Outbound messages accepted (queued and charged), by the surface that sent them.',
      labelNames: ['surface'] as const,
      registers,
    }),
    transitions: new Counter({
      name: 'simgate_message_transitions_total',
      help: 'Messages entering a state (a history row): queued, dispatched, cancelling, sent, delivered, failed, expired, cancelled, received, retrying, rerouted.',
      labelNames: ['to'] as const,
      registers,
    }),
    queued: new Gauge({
      aggregator: 'first',
      name: 'simgate_messages_queued',
      help: 'Outbound messages queued, in the whole database (global: do not sum across instances).',
      registers,
    }),
    accountsQueueFull: new Gauge({
      aggregator: 'first',
      name: 'simgate_accounts_queue_full',
      help: 'Accounts whose queue count has reached their max_queued_messages: their sends answer 429 QUEUE_FULL until phones take messages (global).',
      registers,
    }),
    queueFull: new Counter({
      name: 'simgate_queue_full_total',
      help: 'Sends (a single message or a bulk) refused with 429 QUEUE_FULL: the account’s queue was at its max_queued_messages.',
      registers,
    }),
    dispatched: new Gauge({
      aggregator: 'first',
      name: 'simgate_messages_dispatched',
      help: 'Outbound messages handed to a phone and not yet reported, in the whole database (global).',
      registers,
    }),
    oldestQueuedAge: new Gauge({
      aggregator: 'first',
      name: 'simgate_oldest_queued_message_age_seconds',
      help: 'Age of the oldest queued message due now whose phone is online (global); 0 when there is none.',
      registers,
    }),
    dispatchLatency: new Histogram({
      name: 'simgate_message_dispatch_latency_seconds',
      help: 'From a message being accepted (or falling due, when scheduled) to its hand-over to a phone.',
      buckets: MESSAGE_WAIT,
      registers,
    }),
    deliveryLatency: new Histogram({
      name: 'simgate_message_delivery_latency_seconds',
      help: 'From a message being accepted (or falling due, when scheduled) to its delivery report.',
      buckets: MESSAGE_WAIT,
      registers,
    }),
    phones: new Gauge({
      aggregator: 'first',
      name: 'simgate_phones',
      help: 'Phones by status, in the whole database (global).',
      labelNames: ['status'] as const,
      registers,
    }),
    deviceConnections: new Gauge({
      name: 'simgate_device_connections',
      help: 'Devices connected to this instance: SMSGate app event streams (sse) and long-polling claims (longpoll).',
      labelNames: ['kind'] as const,
      registers,
    }),
    heartbeats: new Counter({
      name: 'simgate_heartbeats_total',
      help: 'Heartbeats recorded.',
      registers,
    }),
    webhookDeliveries: new Counter({
      name: 'simgate_webhook_deliveries_total',
      help: 'Webhook delivery attempts, by outcome: succeeded, retry (another attempt is scheduled), failed (no more), superseded (another worker’s claim took over), dropped (the webhook was deleted meanwhile).',
      labelNames: ['outcome'] as const,
      registers,
    }),
    webhookDuration: new Histogram({
      name: 'simgate_webhook_delivery_duration_seconds',
      help: 'Time of one webhook post, from connecting to the receiver’s answer (or giving up).',
      buckets: WEBHOOK_POST,
      registers,
    }),
    webhooksPending: new Gauge({
      aggregator: 'first',
      name: 'simgate_webhook_deliveries_pending',
      help: 'Webhook deliveries waiting to be posted (due now or later), in the whole database (global).',
      registers,
    }),
    oldestPendingWebhookAge: new Gauge({
      aggregator: 'first',
      name: 'simgate_oldest_pending_webhook_age_seconds',
      help: 'Age of the oldest webhook delivery due now and not yet delivered (global); 0 when there is none.',
      registers,
    }),
    creditsMoved: new Counter({
      name: 'simgate_credits_moved_total',
      help: 'Credits moved, by ledger entry kind (message_charge, refund, transfer_out, …).',
      labelNames: ['kind'] as const,
      registers,
    }),
    automationActions: new Counter({
      name: 'simgate_automation_actions_total',
      help: 'What automation did about inbound messages, by action kind and result (done, or why it was skipped).',
      labelNames: ['kind', 'result'] as const,
      registers,
    }),
    mcpCalls: new Counter({
      name: 'simgate_mcp_calls_total',
      help: 'MCP tool calls answered, by tool and outcome (ok, or the error code).',
      labelNames: ['tool', 'outcome'] as const,
      registers,
    }),
    emailMessages: new Counter({
      name: 'simgate_email_messages_total',
      help: 'Email to SMS: mails handled by outcome (sent, partly_sent, refused, too_long, …) and refused logins and recipients.',
      labelNames: ['outcome'] as const,
      registers,
    }),
    taskRuns: new Counter({
      name: 'simgate_background_task_runs_total',
      help: 'Passes of the background tasks run by this instance, by task and result (ok, error).',
      labelNames: ['task', 'result'] as const,
      registers,
    }),
    taskDuration: new Histogram({
      name: 'simgate_background_task_duration_seconds',
      help: 'Time of one pass of a background task.',
      labelNames: ['task'] as const,
      buckets: TASK_RUN,
      registers,
    }),
    retentionRowsRemoved: new Counter({
      name: 'simgate_retention_rows_removed_total',
      help: 'Rows the retention sweeps of this instance purged or deleted, by kind (message_content, heartbeats, …).',
      labelNames: ['kind'] as const,
      registers,
    }),
    dbPool: new Gauge({
      name: 'simgate_db_pool_connections',
      help: 'This instance’s database connections: in_use, idle, and waiting (work that waits for one).',
      labelNames: ['state'] as const,
      registers,
    }),
    smppBinds: new Gauge({
      name: 'simgate_smpp_binds',
      help: 'SMPP binds open on this instance, by kind (transmitter, receiver, transceiver).',
      labelNames: ['kind'] as const,
      registers,
    }),
    smppPdus: new Counter({
      name: 'simgate_smpp_pdus_total',
      help: 'SMPP requests answered by this instance, by command and the status answered (ESME_ROK, ESME_RTHROTTLED, …).',
      labelNames: ['command', 'status'] as const,
      registers,
    }),
    eventLoopDelayP99: new Gauge({
      name: 'simgate_eventloop_delay_p99_seconds',
      help: 'Event-loop delay of one process, 99th percentile since the previous scrape, by web process (0 to WEB_CONCURRENCY - 1).',
      labelNames: ['process'] as const,
      registers,
      collect() {
        this.set({ process: WEB_PROCESS }, eventLoopDelay.percentile(99) / 1e9);
        eventLoopDelay.reset();
      },
    }),
    buildInfo: new Gauge({
      aggregator: 'first',
      name: 'simgate_build_info',
      help: 'Always 1: the running version, Node.js version and database kind.',
      labelNames: ['version', 'node', 'database'] as const,
      registers,
    }),
  };
}

export type Metrics = ReturnType<typeof define>;
type MetricsGlobal = { registry: Registry; metrics: Metrics };

// One registry per process: Next evaluates this module in several bundles (instrumentation, route
// bundles), and a counter bumped in one must be the counter the /metrics route reads.
const globalForMetrics = globalThis as typeof globalThis & { __simgateMetrics?: MetricsGlobal };

function created(): MetricsGlobal {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const metrics = define(registry);
  // The doors' series exist from the start, at 0: a door not used yet still has its line on the
  // dashboard, and rate() sees its first increase.
  for (const kind of ['transmitter', 'receiver', 'transceiver']) metrics.smppBinds.set({ kind }, 0);
  metrics.smppPdus.inc({ command: 'submit_sm', status: 'ESME_ROK' }, 0);
  metrics.mcpCalls.inc({ tool: 'send_sms', outcome: 'ok' }, 0);
  metrics.emailMessages.inc({ outcome: 'sent' }, 0);
  return { registry, metrics };
}

globalForMetrics.__simgateMetrics ??= created();

export const registry: Registry = globalForMetrics.__simgateMetrics.registry;
export const metrics: Metrics = globalForMetrics.__simgateMetrics.metrics;

/** Every metric name this registry defines (besides prom-client's default process and Node metrics). */
export function simgateMetricNames(): string[] {
  return Object.values(metrics).map((metric) => (metric as unknown as { name: string }).name);
}

/** Sets `simgate_build_info`; called once the database kind is known. */
export function recordBuildInfo(database: 'pglite' | 'postgresql'): void {
  metrics.buildInfo.reset();
  metrics.buildInfo.set({ version: APP_VERSION, node: process.version, database }, 1);
}

/** `404` → `4xx`. */
export function statusClass(status: number): string {
  return `${Math.floor(status / 100)}xx`;
}
