import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import { type AddressObject, type EmailAddress, type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { type Database, withQueryOrigin } from '@/db';
import { principalForKey } from '@/lib/auth/key-lookup';
import { MAX_EMAIL_SMS_RECIPIENTS } from '@/lib/email-to-sms/schemas';
import { type MailRecipient, sendMailAsSms } from '@/lib/email-to-sms/send';
import { accountOfConfirmedSender } from '@/lib/email-to-sms/senders';
import { DomainError } from '@/lib/errors';
import { log } from '@/lib/log';
import { may } from '@/lib/members/roles';
import { metrics } from '@/lib/metrics/registry';
import { isLoopbackAddress } from '@/lib/net/host-policy';
import { consumeRateLimits, windowState } from '@/lib/rate-limit/consume';
import { takeKeyToken } from '@/lib/rate-limit/key-bucket';
import { recipientOf } from './address';
import { replyOf, type SmtpReply, TRY_LATER } from './replies';

/** The largest mail taken (attachments included, then ignored): past it 552 at the end of DATA. */
export const MAX_MAIL_BYTES = 10 * 1024 * 1024;
/** Failed AUTH attempts from one address in the window before AUTH is refused there for a while. */
export const AUTH_FAILURES_ALLOWED = 10;
const AUTH_FAILURE_WINDOW_S = 900;
/** Connections one instance holds at once. */
const MAX_CLIENTS = 100;

export type SmtpDoorOptions = {
  db: Database;
  port: number;
  host: string;
  domains: readonly string[];
  tls?: { cert: string; key: string };
  allowConfirmedSenders: boolean;
};

type Outcome =
  | 'sent'
  | 'partly_sent'
  | 'refused'
  | 'too_long'
  | 'no_text'
  | 'too_large'
  | 'failed'
  | 'unauthenticated'
  | 'auth_failed'
  | 'relay_denied'
  | 'bad_recipient'
  | 'too_many_recipients'
  | 'no_recipient';

function counted(outcome: Outcome): void {
  metrics.emailMessages.inc({ outcome });
}

function smtpError(reply: SmtpReply): Error {
  return Object.assign(new Error(reply.text), { responseCode: reply.code });
}

function refusal(outcome: Outcome, reply: SmtpReply): Error {
  counted(outcome);
  return smtpError(reply);
}

/**
 * Where replies to a mail's SMS may be forwarded: its envelope sender (MAIL FROM: what
 * SMTP_ALLOW_CONFIRMED_SENDERS checks, and where mail about a mail goes), or its From header when the
 * envelope names none (the null sender `<>`).
 */
function senderAddressOf(session: SMTPServerSession, parsed: ParsedMail): string | undefined {
  const envelope = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
  return envelope || parsed.from?.value[0]?.address || undefined;
}

function keyOf(recipient: MailRecipient): string {
  return `${recipient.to} ${recipient.from ?? ''}`;
}

function addressesOf(field: AddressObject | AddressObject[] | undefined): string[] {
  const flat = (entries: EmailAddress[]): string[] =>
    entries.flatMap((entry) => [...(entry.address ? [entry.address] : []), ...flat(entry.group ?? [])]);
  return (Array.isArray(field) ? field : field ? [field] : []).flatMap((object) => flat(object.value));
}

/**
 * The SMS recipients a mail's To and Cc headers name at `domains` (groups included), as `keyOf`
 * keys: the recipients of the mail, of whom this delivery serves those that are also its envelope
 * recipients (a relay that splits a mail per recipient sends each SMS once).
 */
function headerRecipients(parsed: ParsedMail, domains: readonly string[]): Set<string> {
  const keys = new Set<string>();
  for (const address of [...addressesOf(parsed.to), ...addressesOf(parsed.cc)]) {
    const recipient = recipientOf(address, domains);
    if (typeof recipient === 'object') keys.add(keyOf(recipient));
  }
  return keys;
}

/** Who sends a session's mail: the account its AUTH opened, or (when allowed) its confirmed sender's. */
type Sender = { accountId: string; rateKey: string };

/**
 * The SMTP server of Email to SMS (docs/doors.md): mail to `<number>@<domain>` becomes one SMS per
 * recipient, sent for the account whose API key authenticated the session (SMTP AUTH, user `apikey`;
 * only after STARTTLS unless the client is on loopback), or, with `allowConfirmedSenders`, for the one
 * account that confirmed the envelope sender. Every refusal is a 5xx and sends nothing; a failure a retry
 * may fix is a 4xx.
 */
export function smtpDoor(options: SmtpDoorOptions): SMTPServer {
  const { db } = options;
  const senders = new Map<string, Sender>();
  /** Sessions whose mail in progress named more recipients than allowed: refused whole at DATA. */
  const overfull = new Set<string>();

  async function authenticate(username: string, password: string, session: SMTPServerSession): Promise<Sender> {
    if (!session.secure && !isLoopbackAddress(session.remoteAddress)) {
      throw refusal('auth_failed', { code: 538, text: '5.7.11 Use STARTTLS before AUTH.' });
    }
    const bucket = `smtp-auth:${session.remoteAddress}`;
    const { hits } = await windowState(db, bucket, AUTH_FAILURE_WINDOW_S);
    if (hits >= AUTH_FAILURES_ALLOWED) {
      throw refusal('auth_failed', { code: 454, text: '4.7.0 Too many failed logins from this address; try later.' });
    }
    const principal = username === 'apikey' ? await principalForKey(db, password) : null;
    if (principal?.kind !== 'account') {
      await consumeRateLimits(db, [
        { bucket, limit: AUTH_FAILURES_ALLOWED, windowSeconds: AUTH_FAILURE_WINDOW_S, what: 'failed SMTP logins' },
      ]).catch(() => undefined);
      throw refusal('auth_failed', {
        code: 535,
        text: '5.7.8 Authentication failed: the user is apikey, the password an account API key (sk_…).',
      });
    }
    // A key given a role sends only if that role may send (lib/members/roles.ts).
    if (principal.role && !may(principal.role, 'messages', 'write')) {
      throw refusal('auth_failed', {
        code: 535,
        text: `5.7.8 This API key's role (${principal.role}) may not send messages.`,
      });
    }
    return { accountId: principal.accountId, rateKey: principal.keyId ?? principal.accountId };
  }

  async function senderOf(session: SMTPServerSession): Promise<Sender | undefined> {
    const authenticated = senders.get(session.id);
    if (authenticated) return authenticated;
    const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
    if (!options.allowConfirmedSenders || !from) return undefined;
    const accountId = await withQueryOrigin('smtp:confirmed sender', () => accountOfConfirmedSender(db, from));
    return accountId ? { accountId, rateKey: accountId } : undefined;
  }

  async function checkRecipient(address: string, session: SMTPServerSession): Promise<void> {
    if (!(await senderOf(session))) {
      throw refusal('unauthenticated', {
        code: 530,
        text: '5.7.0 Authentication required: AUTH with the user apikey and an account API key.',
      });
    }
    const recipient = recipientOf(address, options.domains);
    if (recipient === 'relay_denied') {
      throw refusal('relay_denied', { code: 550, text: `5.7.1 Relaying denied: only ${options.domains.join(', ')}.` });
    }
    if (recipient === 'bad_recipient') {
      throw refusal('bad_recipient', {
        code: 550,
        text: '5.1.3 Not a phone number: write <number>@domain, the number in international format (14155550123).',
      });
    }
    if (session.envelope.rcptTo.length >= MAX_EMAIL_SMS_RECIPIENTS) {
      overfull.add(session.id);
      throw refusal('too_many_recipients', {
        code: 552,
        text: `5.5.3 At most ${MAX_EMAIL_SMS_RECIPIENTS} recipients in one mail.`,
      });
    }
  }

  async function deliver(stream: SMTPServerDataStream, session: SMTPServerSession): Promise<string> {
    const parsed = await simpleParser(stream, { skipTextToHtml: true, skipTextLinks: true, skipImageLinks: true });
    if (stream.sizeExceeded) {
      throw refusal('too_large', { code: 552, text: `5.3.4 The mail is over ${MAX_MAIL_BYTES} bytes.` });
    }
    if (overfull.has(session.id)) {
      throw smtpError({
        code: 552,
        text: `5.5.3 At most ${MAX_EMAIL_SMS_RECIPIENTS} recipients in one mail: nothing was sent.`,
      });
    }
    const sender = await senderOf(session);
    if (!sender) throw refusal('unauthenticated', { code: 530, text: '5.7.0 Authentication required.' });
    takeKeyToken(sender.rateKey);
    // To and Cc only: an envelope recipient the headers do not name (Bcc) gets no SMS.
    const named = headerRecipients(parsed, options.domains);
    const recipients = session.envelope.rcptTo
      .map((rcpt) => recipientOf(rcpt.address, options.domains))
      .filter((recipient): recipient is MailRecipient => typeof recipient === 'object' && named.has(keyOf(recipient)));
    if (recipients.length === 0) {
      throw refusal('no_recipient', {
        code: 550,
        text: '5.1.1 No recipient in To or Cc: a Bcc recipient gets no SMS, nothing was sent.',
      });
    }
    const sends = await withQueryOrigin('smtp:email to sms', () =>
      sendMailAsSms(db, sender.accountId, {
        subject: parsed.subject ?? '',
        body: parsed.text ?? '',
        messageId: parsed.messageId,
        sender: senderAddressOf(session, parsed),
        recipients,
      }),
    );
    const sent = sends.filter((send) => 'id' in send);
    const refused = sends.flatMap((send) => ('refused' in send ? [send] : []));
    if (refused.length === 0) {
      counted('sent');
      return `Queued ${sent.length} SMS: ${sent.map((send) => send.id).join(', ')}`;
    }
    const first = refused[0] as (typeof refused)[number];
    if (sent.length === 0) {
      counted('refused');
      throw smtpError(replyOf(first.refused));
    }
    counted('partly_sent');
    const reasons = refused.map((send) => `${send.to} (${send.refused.code})`).join(', ');
    return `Queued ${sent.length} of ${sends.length} SMS; refused: ${reasons}`;
  }

  function failed(error: unknown): Error {
    if ((error as { responseCode?: number }).responseCode) return error as Error;
    if (error instanceof DomainError) {
      if (error.code === 'PAYLOAD_TOO_LARGE') counted('too_long');
      else if (error.code === 'VALIDATION_ERROR') counted('no_text');
      else counted('failed');
      return smtpError(replyOf(error));
    }
    log.error({ err: error }, 'email to SMS: a mail could not be handled');
    counted('failed');
    return smtpError(TRY_LATER);
  }

  return new SMTPServer({
    name: options.domains[0],
    banner: 'Simgate email to SMS',
    size: MAX_MAIL_BYTES,
    maxClients: MAX_CLIENTS,
    authMethods: ['PLAIN', 'LOGIN'],
    authOptional: true,
    // AUTH is refused in onAuth without TLS unless the client is on loopback (authenticate above).
    allowInsecureAuth: true,
    disableReverseLookup: true,
    logger: false,
    socketTimeout: 60_000,
    ...(options.tls
      ? { cert: fs.readFileSync(options.tls.cert), key: fs.readFileSync(options.tls.key) }
      : { disabledCommands: ['STARTTLS'] }),
    onAuth(auth, session, callback) {
      authenticate(auth.username ?? '', auth.password ?? '', session).then(
        (sender) => {
          senders.set(session.id, sender);
          callback(null, { user: sender.accountId });
        },
        (error) => callback(failed(error)),
      );
    },
    onMailFrom(_address, session, callback) {
      overfull.delete(session.id);
      callback();
    },
    onRcptTo(address, session, callback) {
      checkRecipient(address.address, session).then(
        () => callback(),
        (error) => callback(failed(error)),
      );
    },
    onData(stream, session, callback) {
      deliver(stream, session).then(
        (message) => callback(null, message),
        (error) => {
          // The rest of the mail is read (and dropped) before the answer, as SMTP requires.
          stream.resume();
          stream.once('end', () => callback(failed(error)));
          if (stream.readableEnded) callback(failed(error));
        },
      );
    },
    onClose(session) {
      senders.delete(session.id);
      overfull.delete(session.id);
    },
  });
}

/** Listens on the options' port (0: any free one); resolves with the port and a stop function. */
export async function listenSmtpDoor(options: SmtpDoorOptions): Promise<{ port: number; stop: () => Promise<void> }> {
  const server = smtpDoor(options);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (error) => log.warn({ err: error }, 'email to SMS: SMTP connection error'));
  const { port } = server.server.address() as AddressInfo;
  return { port, stop: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
