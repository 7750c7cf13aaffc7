import { connect, type PDU, type PduFields, type Session } from 'smpp';
import { type SmppLimits, type SmppServer, startSmppServer } from '@/lib/protocols/smpp/server';
import { STATUS } from '@/lib/protocols/smpp/statuses';
import { until } from './poll';

/** A status's name, for readable assertions. */
export function nameOf(status: number): string {
  return Object.entries(STATUS).find(([, code]) => code === status)?.[0] ?? `0x${status.toString(16)}`;
}

export type Client = {
  session: Session;
  /** deliver_sm received (each acknowledged with ESME_ROK unless `refuse` says otherwise). */
  delivered: PDU[];
  closed: () => boolean;
  request(
    command: 'bind_transmitter' | 'bind_receiver' | 'bind_transceiver' | 'submit_sm' | 'enquire_link' | 'unbind',
    fields?: PduFields,
  ): Promise<PDU>;
  close(): Promise<void>;
};

/** An SMPP client of the `smpp` package, connected to `port` on loopback. */
export async function smppClient(port: number, options: { refuseDeliveries?: () => boolean } = {}): Promise<Client> {
  let closed = false;
  const delivered: PDU[] = [];
  const session = await new Promise<Session>((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port }, () => resolve(s));
    s.once('error', reject);
  });
  session.on('error', () => undefined);
  session.on('close', () => {
    closed = true;
  });
  session.on('deliver_sm', (pdu: PDU) => {
    const refuse = options.refuseDeliveries?.() ?? false;
    if (!refuse) delivered.push(pdu);
    session.send(pdu.response({ command_status: refuse ? STATUS.ESME_RX_T_APPN : 0 }));
  });
  return {
    session,
    delivered,
    closed: () => closed,
    request: (command, fields = {}) =>
      new Promise<PDU>((resolve, reject) => {
        const sent = (session[command] as (f: PduFields, cb: (pdu: PDU) => void) => boolean)(fields, resolve);
        if (!sent) reject(new Error(`${command}: the connection is closed`));
      }),
    close: () =>
      new Promise<void>((resolve) => {
        if (closed) return resolve();
        session.once('close', () => resolve());
        session.destroy();
      }),
  };
}

/** A client bound as `kind` with this login; throws unless the bind succeeds. */
export async function boundClient(
  port: number,
  kind: 'bind_transmitter' | 'bind_receiver' | 'bind_transceiver',
  login: { system_id: string; password: string },
): Promise<Client> {
  const client = await smppClient(port);
  const resp = await client.request(kind, { system_id: login.system_id, password: login.password });
  if (resp.command_status !== 0) throw new Error(`${kind}: ${nameOf(resp.command_status)}`);
  return client;
}

/** An SMPP server on a free loopback port, for one test file. */
export async function testSmppServer(limits: Partial<SmppLimits> = {}): Promise<SmppServer & { port: number }> {
  const server = await startSmppServer({ listeners: [{ port: 0 }], limits });
  return { ...server, port: server.ports[0]! };
}

export { until };
