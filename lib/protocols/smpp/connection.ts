import { randomUUID } from 'node:crypto';
import type { Session } from 'smpp';
import { MAX_CONTENT_LENGTH } from '@/lib/messages/limits';
import type { OpenBind } from '@/lib/smpp/binds';
import type { SmppDelivery } from '@/lib/smpp/deliveries';
import type { SmppBindKind } from '@/lib/smpp/types';
import type { StatusName } from './statuses';
import type { SubmitText } from './wire';

/** What one SMPP server holds to its limits (docs/smpp.md, "Limits"). */
export type SmppLimits = {
  /** submit_sm one bind may have unanswered; one more answers ESME_RTHROTTLED. */
  window: number;
  /** deliver_sm one receiver bind may have unacknowledged. */
  deliverWindow: number;
  /** Concatenated messages one bind may be assembling at once, and how long a part waits for the rest. */
  assemblies: number;
  assemblyTimeoutMs: number;
  /** A connection must bind within this, and a bound one send something (enquire_link) within idleMs. */
  bindTimeoutMs: number;
  idleMs: number;
  /** How long a deliver_sm waits for its deliver_sm_resp. */
  deliverTimeoutMs: number;
  /** Failed binds one address may make within bindFailureWindowS; past it its binds answer ESME_RBINDFAIL. */
  bindFailuresPerAddress: number;
  bindFailureWindowS: number;
};

export const DEFAULT_LIMITS: SmppLimits = {
  window: 10,
  deliverWindow: 10,
  assemblies: 32,
  assemblyTimeoutMs: 60_000,
  bindTimeoutMs: 30_000,
  idleMs: 300_000,
  deliverTimeoutMs: 30_000,
  bindFailuresPerAddress: 30,
  bindFailureWindowS: 600,
};

export const BIND_KINDS: Record<string, SmppBindKind> = {
  bind_transmitter: 'transmitter',
  bind_receiver: 'receiver',
  bind_transceiver: 'transceiver',
};

export type Bound = OpenBind & { kind: SmppBindKind; credentialId: string; systemId: string };

type Assembly = { id: string; parts: (string | undefined)[]; received: number; length: number; timer: NodeJS.Timeout };

/** One SMPP connection: its bind, its requests in flight, its deliveries and its concatenated messages. */
export class Connection {
  bound?: Bound;
  binding = false;
  closed = false;
  /** Sent an enquire_link after being idle, not yet answered. */
  probed = false;
  /** submit_sm being handled. */
  outstanding = 0;
  /** deliver_sm sent and not acknowledged, by delivery id. */
  readonly delivering = new Map<string, SmppDelivery>();
  readonly assemblies = new Map<string, Assembly>();
  constructor(readonly session: Session) {}

  get canSubmit(): boolean {
    return this.bound !== undefined && this.bound.kind !== 'receiver';
  }
  get canReceive(): boolean {
    return this.bound !== undefined && this.bound.kind !== 'transmitter' && !this.closed;
  }

  /** A part of a concatenated message: kept until the others arrive; the whole text once complete. */
  assemble(
    key: string,
    text: string,
    part: NonNullable<SubmitText['part']>,
    limits: Pick<SmppLimits, 'assemblies' | 'assemblyTimeoutMs'>,
  ): { id: string; text?: string } | StatusName {
    let assembly = this.assemblies.get(key);
    if (!assembly) {
      if (this.assemblies.size >= limits.assemblies) return 'ESME_RMSGQFUL';
      const timer = setTimeout(() => this.assemblies.delete(key), limits.assemblyTimeoutMs);
      timer.unref();
      assembly = { id: randomUUID(), parts: new Array(part.total), received: 0, length: 0, timer };
      this.assemblies.set(key, assembly);
    }
    const index = part.seq - 1;
    if (assembly.parts[index] === undefined) assembly.received += 1;
    else assembly.length -= assembly.parts[index]?.length ?? 0;
    assembly.parts[index] = text;
    assembly.length += text.length;
    if (assembly.length > MAX_CONTENT_LENGTH) {
      this.dropAssembly(key);
      return 'ESME_RINVMSGLEN';
    }
    if (assembly.received < part.total) return { id: assembly.id };
    this.dropAssembly(key);
    return { id: assembly.id, text: assembly.parts.join('') };
  }

  dropAssembly(key: string): void {
    const assembly = this.assemblies.get(key);
    if (assembly) clearTimeout(assembly.timer);
    this.assemblies.delete(key);
  }
}
