// The `smpp` package (PDU codec, client and server sessions) ships no types: what Simgate uses of it.
declare module 'smpp' {
  import type { EventEmitter } from 'node:events';
  import type { Server as NetServer, Socket } from 'node:net';

  export type PduFields = Record<string, unknown>;

  export class PDU {
    constructor(command: string, options?: PduFields);
    command: string;
    command_id: number;
    command_status: number;
    sequence_number: number;
    [field: string]: unknown;
    isResponse(): boolean;
    response(options?: PduFields): PDU;
  }

  type Callback = (pdu: PDU) => void;
  type Shortcut = (options?: PduFields, responseCallback?: Callback, sendCallback?: Callback) => boolean;

  export class Session extends EventEmitter {
    socket: Socket;
    send(pdu: PDU, responseCallback?: Callback, sendCallback?: Callback): boolean;
    close(callback?: () => void): void;
    destroy(callback?: () => void): void;
    bind_transmitter: Shortcut;
    bind_receiver: Shortcut;
    bind_transceiver: Shortcut;
    submit_sm: Shortcut;
    deliver_sm: Shortcut;
    enquire_link: Shortcut;
    unbind: Shortcut;
  }

  export function createServer(options: PduFields, listener?: (session: Session) => void): NetServer;
  export function connect(options: PduFields, listener?: () => void): Session;

  export const errors: Record<string, number>;
  export const encodings: Record<
    'ASCII' | 'LATIN1' | 'UCS2',
    { match(text: string): boolean; encode(text: string): Buffer }
  >;

  /** The package is CommonJS: Node's ESM loader gives its exports as the default export only. */
  const smpp: {
    createServer: typeof createServer;
    connect: typeof connect;
    errors: typeof errors;
    encodings: typeof encodings;
  };
  export default smpp;
}
