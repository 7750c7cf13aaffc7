import type { Server as NetServer } from 'node:net';
import smpp, { type PDU, type PduFields, type Session } from 'smpp';
import { type Database, getDb } from '@/db';
import { DomainError } from '@/lib/errors';
import { log } from '@/lib/log';
import { MIN_TTL_SECONDS } from '@/lib/messages/limits';
import { metrics } from '@/lib/metrics/registry';
import { listenTo } from '@/lib/notify/channel';
import { closeBind, type OpenBind, openBind, refreshBinds } from '@/lib/smpp/binds';
import {
  checkBindLogin,
  liveCredentialIds,
  recentBindFailures,
  recordBindFailure,
  SMPP_CREDENTIALS_CHANNEL,
} from '@/lib/smpp/credentials';
import {
  ackSmppDelivery,
  claimSmppDeliveries,
  releaseSmppDeliveries,
  SMPP_DELIVERIES_CHANNEL,
  type SmppDelivery,
} from '@/lib/smpp/deliveries';
import { BIND_KINDS, Connection, DEFAULT_LIMITS, type SmppLimits } from './connection';

export { DEFAULT_LIMITS, type SmppLimits } from './connection';

import { submitOverSmpp } from '@/lib/smpp/submit';
import type { SmppBindKind } from '@/lib/smpp/types';
import { STATUS, type StatusName, statusName, submitStatusOf } from './statuses';
import { deliverFields, e164Of, submitTextOf, timeOf } from './wire';

export type SmppServer = {
  /** The ports listened on (0 asked: the one the system chose). */
  ports: number[];
  /** Binds open on this server (tests). */
  binds(): number;
  close(): Promise<void>;
};

/**
 * The SMPP 3.4 server: binds with the account's SMPP logins, submit_sm through the outbound
 * pipeline (origin `smpp`), and the queued receipts and inbound messages (lib/smpp/deliveries.ts)
 * sent to receiver binds as deliver_sm. Binds are per connection and their state is in the
 * database, so several instances behind a TCP balancer serve one account together.
 */
export async function startSmppServer(options: {
  listeners: Array<{ port: number; host?: string; tls?: { cert: Buffer; key: Buffer } }>;
  limits?: Partial<SmppLimits>;
  db?: () => Promise<Database>;
}): Promise<SmppServer> {
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const database = options.db ?? getDb;
  const connections = new Set<Connection>();
  let stopping = false;

  const answer = (conn: Connection, pdu: PDU, status: StatusName, fields: PduFields = {}) => {
    metrics.smppPdus.inc({ command: pdu.command, status });
    if (conn.closed) return;
    conn.session.send(pdu.response({ ...fields, command_status: STATUS[status] }));
  };

  const closeConnection = (conn: Connection) => {
    if (conn.closed) return;
    conn.closed = true;
    conn.session.close();
    setTimeout(() => conn.session.destroy(), 2_000).unref();
  };

  // ---- binds -------------------------------------------------------------------------------

  async function bind(conn: Connection, pdu: PDU, kind: SmppBindKind): Promise<void> {
    if (conn.bound || conn.binding) return answer(conn, pdu, 'ESME_RALYBND');
    conn.binding = true;
    try {
      const db = await database();
      const address = conn.session.socket.remoteAddress ?? 'unknown';
      if ((await recentBindFailures(db, address, limits.bindFailureWindowS)) >= limits.bindFailuresPerAddress) {
        answer(conn, pdu, 'ESME_RBINDFAIL');
        return closeConnection(conn);
      }
      const login = await checkBindLogin(db, String(pdu.system_id ?? ''), String(pdu.password ?? ''));
      if (login.outcome !== 'ok') {
        await recordBindFailure(db, address);
        answer(conn, pdu, login.outcome === 'unknown_system_id' ? 'ESME_RINVSYSID' : 'ESME_RINVPASWD');
        // One try per connection: a guesser pays a connection (and a hash) for each password.
        return closeConnection(conn);
      }
      let open: OpenBind;
      try {
        open = await openBind(db, { accountId: login.accountId, credentialId: login.credentialId, kind });
      } catch (error) {
        if (error instanceof DomainError && error.code === 'PLAN_LIMIT_REACHED') {
          answer(conn, pdu, 'ESME_RBINDFAIL');
          return closeConnection(conn);
        }
        throw error;
      }
      if (conn.closed) {
        await closeBind(db, open);
        return;
      }
      conn.bound = { ...open, kind, credentialId: login.credentialId, systemId: login.systemId };
      metrics.smppBinds.inc({ kind });
      answer(conn, pdu, 'ESME_ROK', { system_id: 'Simgate' });
      if (conn.canReceive) void pump();
    } finally {
      conn.binding = false;
    }
  }

  async function unbound(conn: Connection): Promise<void> {
    for (const key of [...conn.assemblies.keys()]) conn.dropAssembly(key);
    const bound = conn.bound;
    if (!bound) return;
    metrics.smppBinds.dec({ kind: bound.kind });
    const db = await database();
    await closeBind(db, bound);
    // What it held unacknowledged is due again at once, for another bind.
    const held = [...conn.delivering.values()];
    conn.delivering.clear();
    if (held.length > 0) {
      await releaseSmppDeliveries(db, held, { backoff: false });
      void pump();
    }
  }

  // ---- submit_sm ---------------------------------------------------------------------------

  async function submit(conn: Connection, pdu: PDU): Promise<{ status: StatusName; messageId?: string }> {
    const bound = conn.bound;
    if (!bound) return { status: 'ESME_RINVBNDSTS' };
    const decoded = submitTextOf(pdu);
    if (typeof decoded === 'string') return { status: decoded };
    const sourceAddress = String(pdu.source_addr ?? '').trim();
    const from = sourceAddress === '' ? undefined : e164Of(sourceAddress);
    if (sourceAddress !== '' && !from) return { status: 'ESME_RINVSRCADR' };
    const to = e164Of(pdu.destination_addr);
    if (!to) return { status: 'ESME_RINVDSTADR' };
    const sendAt = timeOf(pdu.schedule_delivery_time);
    if (sendAt === 'invalid') return { status: 'ESME_RINVSCHED' };
    const validUntil = timeOf(pdu.validity_period);
    if (validUntil === 'invalid') return { status: 'ESME_RINVEXPIRY' };
    let ttlSeconds: number | undefined;
    if (validUntil) {
      ttlSeconds = Math.round((validUntil.getTime() - (sendAt ?? new Date()).getTime()) / 1000);
      if (ttlSeconds < MIN_TTL_SECONDS) return { status: 'ESME_RINVEXPIRY' };
    }
    let text = decoded.text;
    let id: string | undefined;
    if (decoded.part) {
      const key = `${decoded.part.ref}:${decoded.part.total}:${from ?? ''}:${to}`;
      const assembled = conn.assemble(key, text, decoded.part, limits);
      if (typeof assembled === 'string') return { status: assembled };
      if (assembled.text === undefined) return { status: 'ESME_ROK', messageId: assembled.id };
      text = assembled.text;
      id = assembled.id;
    }
    try {
      const message = await submitOverSmpp(await database(), bound, {
        from,
        to,
        content: text,
        sendAt,
        ttlSeconds,
        registeredDelivery: Number(pdu.registered_delivery ?? 0) & 0x1f,
        id,
      });
      return { status: 'ESME_ROK', messageId: message.id };
    } catch (error) {
      const status = submitStatusOf(error);
      if (status) return { status };
      log.error({ err: error, system_id: bound.systemId }, 'SMPP submit_sm failed');
      return { status: 'ESME_RSYSERR' };
    }
  }

  // ---- deliver_sm: receipts and inbound messages -------------------------------------------

  let pumping = false;
  let pumpAgain = false;

  /** Sends what is due to this instance's receiver binds, until nothing more is or every window is full. */
  async function pump(): Promise<void> {
    if (pumping) {
      pumpAgain = true;
      return;
    }
    pumping = true;
    try {
      do {
        pumpAgain = false;
        const receivers = [...connections].filter((conn) => conn.canReceive);
        const free = receivers.reduce((sum, conn) => sum + Math.max(0, limits.deliverWindow - conn.delivering.size), 0);
        if (free === 0 || stopping) break;
        const db = await database();
        const claimed = await claimSmppDeliveries(
          db,
          {
            accountIds: [...new Set(receivers.map((conn) => conn.bound!.accountId))],
            systemIds: [...new Set(receivers.map((conn) => conn.bound!.systemId))],
          },
          free,
        );
        const unsent: SmppDelivery[] = [];
        for (const delivery of claimed) {
          const conn = receiverFor(receivers, delivery);
          if (conn) send(conn, delivery);
          else unsent.push(delivery);
        }
        if (unsent.length > 0) await releaseSmppDeliveries(db, unsent, { backoff: false });
        if (claimed.length === free && unsent.length === 0) pumpAgain = true;
      } while (pumpAgain);
    } catch (error) {
      log.warn({ err: error }, 'SMPP deliveries: a pass failed; the next one retries');
    } finally {
      pumping = false;
    }
  }

  function receiverFor(receivers: Connection[], delivery: SmppDelivery): Connection | undefined {
    let best: Connection | undefined;
    for (const conn of receivers) {
      const bound = conn.bound!;
      if (bound.accountId !== delivery.accountId) continue;
      if (delivery.systemId !== null && bound.systemId !== delivery.systemId) continue;
      if (conn.delivering.size >= limits.deliverWindow) continue;
      if (!best || conn.delivering.size < best.delivering.size) best = conn;
    }
    return best;
  }

  function send(conn: Connection, delivery: SmppDelivery): void {
    conn.delivering.set(delivery.id, delivery);
    let settled = false;
    const settle = async (acknowledged: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (!conn.delivering.delete(delivery.id)) return;
      try {
        const db = await database();
        if (acknowledged) await ackSmppDelivery(db, delivery);
        else await releaseSmppDeliveries(db, [delivery], { backoff: true });
      } catch (error) {
        log.warn(
          { err: error },
          'SMPP deliveries: could not record an answer; the claim runs out and it is sent again',
        );
      }
      void pump();
    };
    const timer = setTimeout(() => void settle(false), limits.deliverTimeoutMs);
    timer.unref();
    const sent = conn.session.deliver_sm(deliverFields(delivery.kind, delivery.payload), (resp: PDU) => {
      metrics.smppPdus.inc({ command: 'deliver_sm_resp', status: statusName(resp.command_status) });
      void settle(resp.command_status === STATUS.ESME_ROK);
    });
    if (!sent) void settle(false);
  }

  // ---- revocation and liveness -------------------------------------------------------------

  async function closeRevoked(): Promise<void> {
    const bound = [...connections].filter((conn) => conn.bound);
    if (bound.length === 0) return;
    try {
      const live = await liveCredentialIds(
        await database(),
        bound.map((conn) => conn.bound!.credentialId),
      );
      for (const conn of bound) if (!live.has(conn.bound!.credentialId)) closeConnection(conn);
    } catch (error) {
      log.warn({ err: error }, 'SMPP: could not check revoked logins');
    }
  }

  await listenTo(SMPP_CREDENTIALS_CHANNEL, () => void closeRevoked());
  await listenTo(SMPP_DELIVERIES_CHANNEL, () => void pump());
  const ticker = setInterval(() => {
    void pump();
    void closeRevoked();
    const open = [...connections].flatMap((conn) => (conn.bound ? [conn.bound] : []));
    void database()
      .then((db) => refreshBinds(db, open))
      .catch((error) => log.warn({ err: error }, 'SMPP: could not refresh binds'));
  }, 5_000);
  ticker.unref();

  // ---- sessions ----------------------------------------------------------------------------

  /** The status a request that is not a bind or a submit is answered with at once; undefined for a submit_sm to run. */
  function immediateStatus(conn: Connection, pdu: PDU): StatusName | undefined {
    if (pdu.command === 'enquire_link' || pdu.command === 'unbind') return 'ESME_ROK';
    if (!conn.bound) return 'ESME_RINVBNDSTS';
    if (pdu.command !== 'submit_sm') return 'ESME_RINVCMDID';
    if (!conn.canSubmit) return 'ESME_RINVBNDSTS';
    if (conn.outstanding >= limits.window) return 'ESME_RTHROTTLED';
    return undefined;
  }

  function onPdu(conn: Connection, pdu: PDU): void {
    conn.probed = false;
    conn.session.socket.setTimeout(limits.idleMs);
    if (pdu.isResponse() || pdu.command === 'generic_nack') return;
    const kind = BIND_KINDS[pdu.command];
    if (kind) {
      void bind(conn, pdu, kind).catch((error) => {
        log.error({ err: error }, 'SMPP bind failed');
        answer(conn, pdu, 'ESME_RBINDFAIL');
        closeConnection(conn);
      });
    } else if (pdu.command === 'unknown') {
      // The codec answers an unknown command_id with generic_nack ESME_RINVCMDID.
      metrics.smppPdus.inc({ command: 'unknown', status: 'ESME_RINVCMDID' });
      conn.session.send(pdu.response());
    } else {
      const status = immediateStatus(conn, pdu);
      if (status) {
        answer(conn, pdu, status);
        if (pdu.command === 'unbind') closeConnection(conn);
      } else {
        conn.outstanding += 1;
        void submit(conn, pdu)
          .then(({ status, messageId }) => answer(conn, pdu, status, messageId ? { message_id: messageId } : {}))
          .finally(() => {
            conn.outstanding -= 1;
          });
      }
    }
  }

  function onSession(session: Session): void {
    const conn = new Connection(session);
    if (stopping) {
      session.destroy();
      return;
    }
    connections.add(conn);
    session.socket.setTimeout(limits.bindTimeoutMs);
    session.socket.on('timeout', () => {
      // Not bound in time, or silent after an enquire_link: closed.
      if (!conn.bound || conn.probed) {
        closeConnection(conn);
        return;
      }
      // Idle past its limit: asked once whether it is there.
      conn.probed = true;
      session.enquire_link({}, () => undefined);
      session.socket.setTimeout(limits.bindTimeoutMs);
    });
    session.on('pdu', (pdu: PDU) => onPdu(conn, pdu));
    // A malformed stream: the codec cannot resynchronise, so the connection ends.
    session.on('error', () => session.destroy());
    session.on('close', () => {
      conn.closed = true;
      connections.delete(conn);
      void unbound(conn).catch((error) => log.warn({ err: error }, 'SMPP: could not record a closed bind'));
    });
  }

  const servers: NetServer[] = [];
  const ports: number[] = [];
  for (const listener of options.listeners) {
    const server = smpp.createServer(listener.tls ? { cert: listener.tls.cert, key: listener.tls.key } : {}, onSession);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(listener.port, listener.host ?? '127.0.0.1', () => resolve());
    });
    const address = server.address();
    ports.push(typeof address === 'object' && address ? address.port : listener.port);
    servers.push(server);
  }

  return {
    ports,
    binds: () => [...connections].filter((conn) => conn.bound).length,
    async close() {
      stopping = true;
      clearInterval(ticker);
      for (const conn of connections) {
        if (conn.bound) conn.session.unbind({}, () => closeConnection(conn));
        setTimeout(() => closeConnection(conn), 1_000).unref();
      }
      await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    },
  };
}
