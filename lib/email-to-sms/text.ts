import { DomainError } from '@/lib/errors';
import { EMAIL_SMS_MAX_LENGTH } from './schemas';

export type MailText = { subject: string; body: string };

/** Lines at which what follows is no longer the sender's own text. */
const ORIGINAL_MESSAGE = /^-{2,} ?(original message|forwarded message) ?-{2,}$/i;

// C0 controls but the line break, and DEL: an SMS carries none of them.
// biome-ignore lint/suspicious/noControlCharactersInRegex: removing them is the point
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f]/g;

/**
 * The sender's own text of a mail body: quoted lines (`>`), the attribution line before them
 * ("On …, … wrote:"), everything after the signature delimiter (`-- `) or an "Original message"
 * line removed; spaces and tabs collapsed, each line trimmed, blank lines dropped. Linear in the
 * body: one split, one scan.
 */
export function ownText(body: string): string {
  const lines = body.replace(/\r\n?/g, '\n').split('\n');
  // Whether the next line with text after each line is quoted: one scan from the end.
  const quotedNext: boolean[] = new Array(lines.length).fill(false);
  for (let i = lines.length - 2, quoted = false; i >= 0; i--) {
    const after = (lines[i + 1] ?? '').trim();
    if (after) quoted = after.startsWith('>');
    quotedNext[i] = quoted;
  }
  const kept: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] ?? '').replace(CONTROL, ' ');
    if (line === '-- ' || line === '--' || ORIGINAL_MESSAGE.test(line.trim())) break;
    if (line.trimStart().startsWith('>')) continue;
    if (line.trimEnd().endsWith('wrote:') && quotedNext[i]) continue;
    const collapsed = line.replace(/[ \t]+/g, ' ').trim();
    if (collapsed) kept.push(collapsed);
  }
  return kept.join('\n');
}

/**
 * The SMS text of a mail: its own text (`ownText`), opened by the subject when the account says so,
 * or the subject alone when the body has no text (alarms often say everything there). Past the
 * limit it is refused (PAYLOAD_TOO_LARGE naming the limit) or, when the account says so, truncated.
 */
export function smsTextOf(mail: MailText, options: { subjectPrefix: boolean; truncate: boolean }): string {
  const body = ownText(mail.body);
  const subject = ownText(mail.subject).replace(/\n/g, ' ');
  const parts = options.subjectPrefix || !body ? [subject, body] : [body];
  const text = parts.filter(Boolean).join('\n');
  if (!text) throw new DomainError('VALIDATION_ERROR', 'The mail has no text to send: its subject and body are empty.');
  if (text.length <= EMAIL_SMS_MAX_LENGTH) return text;
  if (options.truncate) {
    // Never half of a character outside the Basic Multilingual Plane (an emoji).
    const cut = /[\ud800-\udbff]/.test(text.charAt(EMAIL_SMS_MAX_LENGTH - 1))
      ? EMAIL_SMS_MAX_LENGTH - 1
      : EMAIL_SMS_MAX_LENGTH;
    return text.slice(0, cut);
  }
  throw new DomainError(
    'PAYLOAD_TOO_LARGE',
    `The text is ${text.length} characters; an SMS sent by email is at most ${EMAIL_SMS_MAX_LENGTH}.`,
  );
}
