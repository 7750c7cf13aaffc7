import type { Database } from '@/db';
import type { DevicePrincipal } from '@/lib/auth/principal';
import { config } from '@/lib/config';
import { type DeviceSession, isLiveDevice, openDeviceSession } from '@/lib/devices/sessions';
import { DomainError } from '@/lib/errors';
import { recordHeartbeat } from '@/lib/heartbeats/record';
import { log } from '@/lib/log';
import { awaitingCancel } from '@/lib/messages/cancelling';
import { probeClaim, probeClaimPatiently, probeItemOf } from '@/lib/messages/claim-probe';
import { findConnectingPhone } from '@/lib/messages/device-phone';
import { watchOutbox } from '@/lib/notify/outbox';
import { everyFromRandomPhase } from '@/lib/runtime/every';
import { onShutdown, shuttingDown } from '@/lib/runtime/lifecycle';
import { MAX_PULL } from './messages';

/** Comment lines keep proxies from closing an idle stream (the reference sends one every 15 s). */
export const KEEPALIVE_INTERVAL_MS = 15_000;

/**
 * How long the app waits before reconnecting to a stream the server closed to shut down (its SSE
 * `retry:`): at least this, plus up to RECONNECT_SPREAD_MS at random per stream, so that the phones of a
 * restarted instance come back spread over that time rather than all at once.
 */
export const RECONNECT_AFTER_SHUTDOWN_MS = 5_000;
export const RECONNECT_SPREAD_MS = 10_000;

/** One stream's `retry:` when the server shuts down. */
export function reconnectAfterShutdownMs(random: () => number = Math.random): number {
  return RECONNECT_AFTER_SHUTDOWN_MS + Math.floor(random() * RECONNECT_SPREAD_MS);
}

/**
 * An SSE event as OkHttp dispatches it: only with a `data:` line (`data: null`, as the reference
 * sends, for an event without a payload; a payload is one line of JSON).
 */
export function sseEvent(name: string, data = 'null'): string {
  return `event: ${name}\ndata: ${data}\n\n`;
}

/**
 * `MessageCancelled` with the reference server's payload (`events.go` NewMessageCancelledEvent:
 * `{"messageId": …}`), which the app's EventsRouter hands to MessageCancelledEvent.withPayload.
 */
export function messageCancelledEvent(messageId: string): string {
  return `event: MessageCancelled\ndata: ${JSON.stringify({ messageId })}\n\n`;
}

/**
 * A stream's presence write that failed: a warning, unless this instance's shutdown cut it off (its
 * database closing under a tick's write). The app then reconnects, and its next stream records it.
 */
export function presenceNotRecorded(error: unknown, deviceId: string): void {
  if (shuttingDown()) return;
  log.warn({ err: error, deviceId }, 'could not record app presence');
}

/**
 * GET /events: the app's notification channel when it runs "SSE only". It first tells the app to
 * fetch its webhooks and settings (its own first fetch races its registration), then sends
 * `MessageEnqueued` on every wake-up of its phone's outbox, the same cross-instance wake-up
 * (LISTEN/NOTIFY) that long-polling claims use, and `MessageCancelled` once per message of its
 * phone asked to be cancelled (`cancelling`: at the stream's start and on each wake-up, which a
 * cancel makes). An open stream is the app's presence: it counts
 * as an online heartbeat when it opens and every half HEARTBEAT_TIMEOUT_S while it stays open (the
 * first tick at a random point of that half: streams that opened together tick apart),
 * each tick after checking that the device still speaks for its phone.
 * Streams are capped (lib/devices/sessions.ts): MAX_STREAMS_PER_DEVICE per device (a newer one
 * closes the oldest), SSE_STREAMS_PER_ACCOUNT per account and SSE_STREAMS_PER_INSTANCE per
 * instance. A stream ends when its device's key is revoked or its phone removed, in any instance.
 * When the server begins to shut down, the stream says when to reconnect (`retry:`) and ends.
 */
export async function openAppEvents(db: Database, device: DevicePrincipal, signal: AbortSignal): Promise<Response> {
  // The slot is taken before any database work, and before the device is checked: a revocation
  // committing from here on ends the session, one committed before fails the check below.
  const session = await openDeviceSession(device, 'stream');
  let stop = () => session.release();
  try {
    return await streamAppEvents(db, device, signal, session, (cleanup) => {
      stop = cleanup;
    });
  } catch (error) {
    stop();
    throw error;
  }
}

async function streamAppEvents(
  db: Database,
  device: DevicePrincipal,
  signal: AbortSignal,
  session: DeviceSession,
  setStop: (stop: () => void) => void,
): Promise<Response> {
  const phone = await findConnectingPhone(db, device);
  const encoder = new TextEncoder();
  // `tick`: a tick's write waits for other streams' ticks; the one as the stream opens goes at once.
  // Whether the device still speaks for its phone: the write itself refuses a revoked device's beat.
  const record = (tick = false) =>
    recordHeartbeat(db, device, { phone: phone.phone, status: 'online' }, { tick }).then(
      () => true,
      (error: unknown) => {
        if (error instanceof DomainError && error.code === 'FORBIDDEN') return false;
        presenceNotRecorded(error, device.deviceId);
        return true;
      },
    );
  // Every tick re-checks the device: a revocation whose notification was lost records no presence.
  const tick = async () => {
    if (session.signal.aborted || shuttingDown()) return;
    const live = await isLiveDevice(db, device.deviceId).catch(() => undefined);
    if (session.signal.aborted) return;
    if (live === false || !(await record(true))) endSession();
  };
  let endSession = () => {};
  // Presence and the outbox watch are in place before the answer starts: a send committed as the
  // stream opens still reaches it. The stream's start() runs synchronously on construction.
  // A second stream of the same device here finds its presence already kept.
  if (!session.hasSibling()) await record();
  let send: (chunk: string) => void = () => {};
  // Each cancel is told once per stream; the lookups run one after another.
  const told = new Set<string>();
  let telling = Promise.resolve();
  // `first`: at the stream's start, a batched look (shared by every phone connecting now) says
  // whether the phone holds any message to drop before its list is read.
  const tellCancels = (first = false) => {
    telling = telling.then(async () => {
      if (session.signal.aborted) return;
      if (first && !(await holdsCancelling())) return;
      const rows = await awaitingCancel(db, phone, { limit: MAX_PULL }).catch((error: unknown) => {
        log.warn({ err: error, deviceId: device.deviceId }, 'could not look for cancelled messages');
        return undefined;
      });
      if (!rows) return;
      const current = new Set(rows.map((row) => row.id));
      for (const id of told) if (!current.has(id)) told.delete(id);
      for (const id of current) {
        if (told.has(id)) continue;
        told.add(id);
        send(messageCancelledEvent(id));
      }
    });
  };
  const holdsCancelling = async () => {
    const probe = await probeClaim(db, probeItemOf(phone, new Date())).catch(() => undefined);
    return probe?.cancelling ?? true;
  };
  const wake = () => {
    send(sseEvent('MessageEnqueued'));
    tellCancels();
  };
  // The stream's own look every STREAM_RECHECK_MS tells the app only what there is: a pull when a
  // message is due (or handed out long ago and unreported), the cancels when it holds any. Gathered
  // with other streams' looks into one statement; if the look fails, the app is told to pull anyway.
  const recheck = () => {
    probeClaimPatiently(db, probeItemOf(phone, new Date())).then(
      (probe) => {
        if (probe.due || probe.unreported) send(sseEvent('MessageEnqueued'));
        if (probe.cancelling) tellCancels();
        else told.clear();
      },
      () => wake(),
    );
  };
  const unwatch = await watchOutbox(phone.id, wake, recheck);
  let stop = () => {
    unwatch();
    session.release();
  };
  setStop(() => stop());
  let stopWatchingShutdown = () => {};
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      const keepalive = setInterval(() => send(':keepalive\n\n'), KEEPALIVE_INTERVAL_MS);
      const stopTicking = everyFromRandomPhase(tick, Math.max(15, config.heartbeatTimeoutSeconds / 2) * 1000);
      const close = () => {
        stop();
        try {
          controller.close();
        } catch {
          // already closed by the client
        }
      };
      endSession = close;
      const closeForShutdown = () => {
        send(`retry: ${reconnectAfterShutdownMs()}\n\n`);
        close();
      };
      stop = () => {
        unwatch();
        session.release();
        clearInterval(keepalive);
        stopTicking();
        signal.removeEventListener('abort', close);
        session.signal.removeEventListener('abort', close);
        stopWatchingShutdown();
        send = () => {};
      };
      send = (chunk: string) => {
        try {
          controller.enqueue(encoder.encode(chunk));
        } catch {
          stop();
        }
      };
      if (signal.aborted || session.signal.aborted) return close();
      if (shuttingDown()) return closeForShutdown();
      signal.addEventListener('abort', close, { once: true });
      session.signal.addEventListener('abort', close, { once: true });
      stopWatchingShutdown = onShutdown(closeForShutdown);
      session.setPush((name, data) => send(sseEvent(name, data)));
      send(sseEvent('WebhooksUpdated'));
      send(sseEvent('SettingsUpdated'));
      tellCancels(true);
    },
    cancel() {
      stop();
    },
  });
  return new Response(stream, {
    status: 200,
    headers: {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    },
  });
}
