import type { Executor } from '@/db';
import { deliverToDevInbox } from '@/lib/dev-inbox/store';
import { type GateRefusal, gateRefusalError } from '@/lib/messages/pipeline';
import { smsConfig } from './config';
import { gatewaySender } from './gateway';

export type Sms = { origin: 'verification_code' | 'sim_check'; to: string; text: string; code?: string };

/**
 * Where outbound service SMS (verification codes, SIM checks) go: null once sent, else why the
 * gate of automatic SMS refused it (lib/messages/gate.ts).
 */
export type SmsSender = { send(executor: Executor, sms: Sms): Promise<GateRefusal | null> };

const devInboxSender: SmsSender = {
  async send(executor, sms) {
    await deliverToDevInbox(executor, { channel: 'sms', to: sms.to, text: sms.text, code: sms.code });
    return null;
  },
};

/** The gateway sender when `VERIFICATION_SENDER_PHONE` is set, else the dev inbox. */
export function smsSender(): SmsSender {
  return smsConfig.senderPhone ? gatewaySender : devInboxSender;
}

/**
 * Sends a service SMS in the caller's transaction: a failure to send rolls back what the
 * caller recorded (the code), so the request can be retried; a refusal of the gate is answered.
 */
export function sendSms(executor: Executor, sms: Sms): Promise<GateRefusal | null> {
  return smsSender().send(executor, sms);
}

/** sendSms for a caller that answers a refusal as the request's error (`what` names the SMS in it). */
export async function sendSmsOrRefuse(executor: Executor, sms: Sms, what: string): Promise<void> {
  const refusal = await sendSms(executor, sms);
  if (refusal) throw gateRefusalError(what, sms.to, refusal);
}
