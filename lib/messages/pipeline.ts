import type { Executor, Transaction } from '@/db';
import { type BulkCreated, type BulkInput, sendBulk } from './bulk';
import { type DryRun, dryRunSend } from './dry-run';
import { sendEncryptedMessage } from './encrypted';
import { type AutomaticOutcome, type AutomaticSms, sendAutomaticSms } from './gate';
import type { ApiOrigin } from './origins';
import type { OutboundPlanInput } from './plan';
import type { MessageWire } from './present';
import { type SendInput, sendMessage } from './send';
import { queueFreeSimCheck, type SimCheckSms } from './sim-check-sms';

/**
 * The one way in for every SMS the gateway sends. Every producer calls one of the functions below
 * and names its `origin` (lib/messages/origins.ts); ORIGINS says which screens and caps that
 * origin passes, and nothing else tells producers apart. Outside lib/messages, nothing else of
 * the send's modules is imported (test/layers.test.ts).
 *
 * The stages, in this order, and where each lives:
 * 1. validate — the request's fields (send.ts `checkInput`, plan.ts `checkedSender`);
 * 2. plan recipients — templates and encryption, one planned message per distinct recipient
 *    (plan.ts `renderRecipients`, `opaqueRecipients`); a single send is a plan of one;
 * 3. screen — the origin's screens: opt-out and allowed countries (eligibility.ts, the same SQL
 *    for one recipient and for many), then for automatic origins the premium-rate numbers, the
 *    stricter country rule and the caps (gate.ts); a refusal has one text (refusals.ts);
 * 4. choose phones — the sender, a group's phone, the SIM slot, pacing (assign.ts, sender-phone.ts);
 * 5. charge credits — through the ledger's one SQL function (lib/credits/ledger.ts);
 * 6. write rows — the one writer of outbound rows (outbound-row.ts), with their history rows;
 * 7. wake the phones — the outbox notification, in the same transaction.
 * A single send runs stages 3 to 7 as one statement (ADR 0001: send.ts `acceptStatement`, and
 * accept-batch.ts for the sends that reach an instance together); a bulk runs them in one
 * transaction (bulk.ts).
 */

/** One recipient, from an API caller (`api`, `twilio`); `encrypted` for the SMSGate app's ciphertext. */
export async function submitMessage(
  executor: Executor,
  accountId: string,
  request: SendInput & { origin: ApiOrigin; encrypted?: boolean },
): Promise<MessageWire> {
  if (request.encrypted) return sendEncryptedMessage(executor, accountId, request);
  return sendMessage(executor, accountId, request);
}

/** Many recipients (templates, a group's phones), from an API caller; all charged or none. */
export function submitBulk(executor: Executor, accountId: string, request: BulkInput): Promise<BulkCreated> {
  return sendBulk(executor, accountId, request);
}

/** What a send of one or many recipients would do, writing nothing. */
export function dryRun(
  executor: Executor,
  accountId: string,
  request: OutboundPlanInput & { requestId?: string; sendAt?: Date; ttlSeconds?: number; statusCallbackUrl?: string },
): Promise<DryRun> {
  return dryRunSend(executor, accountId, request);
}

/**
 * An SMS the gateway sends on its own (rule, HELP, webhook and TwiML replies, opt-out
 * confirmations, the operator's SIM checks and verification codes): through the gate of its
 * origin, in the caller's transaction; sent, or skipped with the reason.
 */
export function submitAutomatic(tx: Executor, sms: AutomaticSms): Promise<AutomaticOutcome> {
  return sendAutomaticSms(tx, sms);
}

/**
 * A SIM check texted by one of the account's own phones (origin `sim_check`, screened by the
 * caller through `screenRecipient`): free, so it skips the charge stage.
 */
export function submitFreeSimCheck(tx: Transaction, sms: SimCheckSms): Promise<void> {
  return queueFreeSimCheck(tx, sms);
}

export type { BulkCreated, BulkInput } from './bulk';
export {
  type AutomaticOutcome,
  type AutomaticSms,
  accountAutomaticSendsInLastHour,
  automaticSendsInLastHour,
  type GateRefusal,
  gateRefusalError,
  lockCounterpart,
  screenRecipient,
} from './gate';
export type { SendInput } from './send';
