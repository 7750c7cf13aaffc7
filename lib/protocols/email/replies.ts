import type { DomainError, ErrorCode } from '@/lib/errors';

/** An SMTP reply: the code and its enhanced status (RFC 3463), then the text. */
export type SmtpReply = { code: number; text: string };

/** What each refusal of the send is in SMTP: permanent (5xx) unless a retry may succeed (4xx). */
const REPLIES: Partial<Record<ErrorCode, [number, string]>> = {
  VALIDATION_ERROR: [554, '5.6.0'],
  PAYLOAD_TOO_LARGE: [552, '5.3.4'],
  FORBIDDEN: [550, '5.7.1'],
  GROUP_NOT_FOUND: [550, '5.7.1'],
  RECIPIENT_OPTED_OUT: [550, '5.7.1'],
  RECIPIENT_COUNTRY_NOT_ALLOWED: [550, '5.7.1'],
  NO_ONLINE_PHONE: [550, '5.4.4'],
  INSUFFICIENT_CREDITS: [552, '5.2.2'],
  RATE_LIMITED: [451, '4.7.1'],
  SERVICE_UNAVAILABLE: [451, '4.3.0'],
};

export function replyOf(error: DomainError): SmtpReply {
  const [code, status] = REPLIES[error.code] ?? [554, '5.0.0'];
  return { code, text: `${status} ${error.detail.replace(/[\r\n]+/g, ' ')} (${error.code})` };
}

/** Anything else: a retry later may succeed, and nothing internal is said. */
export const TRY_LATER: SmtpReply = { code: 451, text: '4.3.0 Temporary failure; try again later.' };
