import nodemailer, { type Transporter } from 'nodemailer';
import type { Executor } from '@/db';
import { config } from '@/lib/config';
import { deliverToDevInbox } from '@/lib/dev-inbox/store';
import { DomainError } from '@/lib/errors';
import { log } from '@/lib/log';

export type Email = { to: string; subject: string; text: string; code?: string };

const transports = new Map<string, Transporter>();

function transportFor(smtpUrl: string): Transporter {
  let transport = transports.get(smtpUrl);
  if (!transport) {
    transport = nodemailer.createTransport(smtpUrl);
    transports.set(smtpUrl, transport);
  }
  return transport;
}

/**
 * Sends an email through SMTP when `SMTP_URL` is set (e.g. `smtps://user:pass@mail.example.com`),
 * else keeps it in the dev inbox. A refused or unreachable SMTP server answers 503, so the
 * caller's transaction (and the code it stored) rolls back and the request can simply be retried.
 */
export async function sendEmail(executor: Executor, email: Email): Promise<void> {
  const smtpUrl = config.smtpUrl;
  if (!smtpUrl) {
    await deliverToDevInbox(executor, { channel: 'email', ...email });
    return;
  }
  try {
    await transportFor(smtpUrl).sendMail({
      from: config.mailFrom,
      to: email.to,
      subject: email.subject,
      text: email.text,
    });
  } catch (error) {
    log.error({ err: error, to: email.to }, 'email could not be sent');
    throw new DomainError('SERVICE_UNAVAILABLE', 'The email could not be sent. Try again shortly.', {
      headers: { 'Retry-After': '30' },
    });
  }
}
