import nodemailer, { type Transporter } from 'nodemailer';
import type { Executor } from '@/db';
import { config } from '@/lib/config';
import { deliverToDevInbox } from '@/lib/dev-inbox/store';
import { DomainError } from '@/lib/errors';
import { log } from '@/lib/log';

export type Email = { to: string; subject: string; text: string; code?: string };

const transports = new Map<string, Transporter>();

/** How long a talk with the SMTP server may take at most: a silent server never holds a sender for long. */
export const SMTP_TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

function transportFor(smtpUrl: string): Transporter {
  let transport = transports.get(smtpUrl);
  if (!transport) {
    transport = nodemailer.createTransport({ url: smtpUrl, ...SMTP_TIMEOUTS });
    transports.set(smtpUrl, transport);
  }
  return transport;
}

/**
 * Hands an email to SMTP when `SMTP_URL` is set, else to the dev inbox; an SMTP failure is thrown
 * as it came (nodemailer's error, with its `responseCode` when the server answered).
 */
export async function transmitEmail(executor: Executor, email: Email): Promise<void> {
  const smtpUrl = config.smtpUrl;
  if (!smtpUrl) {
    await deliverToDevInbox(executor, { channel: 'email', ...email });
    return;
  }
  await transportFor(smtpUrl).sendMail({
    from: config.mailFrom,
    to: email.to,
    subject: email.subject,
    text: email.text,
  });
}

/**
 * Sends an email through SMTP when `SMTP_URL` is set (e.g. `smtps://user:pass@mail.example.com`),
 * else keeps it in the dev inbox. A refused or unreachable SMTP server answers 503, so the
 * caller's transaction (and the code it stored) rolls back and the request can simply be retried.
 */
export async function sendEmail(executor: Executor, email: Email): Promise<void> {
  if (!config.smtpUrl) {
    await deliverToDevInbox(executor, { channel: 'email', ...email });
    return;
  }
  try {
    await transmitEmail(executor, email);
  } catch (error) {
    log.error({ err: error, to: email.to }, 'email could not be sent');
    throw new DomainError('SERVICE_UNAVAILABLE', 'The email could not be sent. Try again shortly.', {
      headers: { 'Retry-After': '30' },
    });
  }
}

/**
 * Sends an email once the caller's work is done (after its commit, off the request's path); a
 * failure is only logged, so the caller's answer never depends on the mail server.
 */
export function sendAfterCommit(executor: Executor, mail: Email): void {
  setImmediate(() => {
    sendEmail(executor, mail).catch((error: unknown) => {
      // sendEmail logs an SMTP failure itself (DomainError); anything else is logged here.
      if (!(error instanceof DomainError)) log.error({ err: error, to: mail.to }, 'email could not be sent');
    });
  });
}
