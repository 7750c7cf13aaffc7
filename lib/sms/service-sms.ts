import type { Executor } from '@/db';
import { deliverToDevInbox } from '@/lib/dev-inbox/store';
import { smsConfig } from './config';
import { gatewaySender } from './gateway';

export type Sms = { to: string; text: string; code?: string };

/** Where outbound service SMS (verification codes) go. */
export type SmsSender = { send(executor: Executor, sms: Sms): Promise<void> };

const devInboxSender: SmsSender = {
  send: (executor, sms) => deliverToDevInbox(executor, { channel: 'sms', to: sms.to, text: sms.text, code: sms.code }),
};

/** The gateway sender when `VERIFICATION_SENDER_PHONE` is set, else the dev inbox. */
export function smsSender(): SmsSender {
  return smsConfig.senderPhone ? gatewaySender : devInboxSender;
}

/**
 * Sends a service SMS in the caller's transaction: a failure to send rolls back what the
 * caller recorded (the code), so the request can be retried.
 */
export function sendSms(executor: Executor, sms: Sms): Promise<void> {
  return smsSender().send(executor, sms);
}
