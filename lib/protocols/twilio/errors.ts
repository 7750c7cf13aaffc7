import { DomainError, type ErrorCode } from '@/lib/errors';

/**
 * Errors as Twilio's clients read them: `{ code, message, more_info, status }`, where `code` is
 * Twilio's error number (RestException.code). An error raised here names its Twilio code; any other
 * (a shared domain function's, the wrapper's) is mapped from Simgate's code, and failing that its
 * status becomes 20000 + status, as Twilio's own 20404, 20429 and 20500 are.
 */
export type TwilioErrorBody = { code: number; message: string; more_info: string; status: number };

/** Simgate's codes with a Twilio code of their own. */
const TWILIO_CODE_OF: Partial<Record<ErrorCode, number>> = {
  UNAUTHENTICATED: 20003,
  WRONG_KEY_KIND: 20003,
  NOT_FOUND: 20404,
  GROUP_NOT_FOUND: 20404,
  RATE_LIMITED: 20429,
  // "Queue overflow".
  QUEUE_FULL: 30001,
  // "Account is not active": what Twilio answers when the balance cannot pay.
  INSUFFICIENT_CREDITS: 10001,
  RECIPIENT_OPTED_OUT: 21610,
  RECIPIENT_COUNTRY_NOT_ALLOWED: 21408,
  // The sending phone is not one the account may send from (unverified, another account's).
  FORBIDDEN: 21606,
};

/** A validation error's Twilio code, by the field it names (Simgate's names and Twilio's parameters). */
const FIELD_CODES: Record<string, number> = {
  to: 21211,
  To: 21211,
  from: 21606,
  From: 21606,
  content: 21602,
  Body: 21602,
  from_group: 21701,
  MessagingServiceSid: 21701,
  status_callback_url: 21609,
  StatusCallback: 21609,
  MediaUrl: 21620,
};

export function moreInfo(code: number): string {
  return `https://www.twilio.com/docs/errors/${code}`;
}

/** A DomainError that answers with Twilio's `code`. */
export function twilioError(
  simgateCode: ErrorCode,
  twilioCode: number,
  message: string,
  headers?: Record<string, string>,
): DomainError {
  return new DomainError(simgateCode, message, { extra: { twilio_code: twilioCode }, headers });
}

type ProblemLike = {
  code?: string;
  status?: number;
  detail?: string;
  twilio_code?: unknown;
  errors?: { path: string }[];
};

/** Twilio's error body for a problem+json body. */
export function twilioBodyOf(problem: ProblemLike, status: number): TwilioErrorBody {
  const field = problem.errors?.[0]?.path.split('.')[0];
  const code =
    (typeof problem.twilio_code === 'number' ? problem.twilio_code : undefined) ??
    (problem.code === 'VALIDATION_ERROR' && field ? FIELD_CODES[field] : undefined) ??
    TWILIO_CODE_OF[problem.code as ErrorCode] ??
    20000 + status;
  return { code, message: problem.detail ?? 'The request failed.', more_info: moreInfo(code), status };
}

/** The Twilio codes the routes answer with, for their documentation. */
export const DOCUMENTED_CODES =
  '20003 (authentication), 20404 (not found: a message, or another account’s SID), 20429 (rate limit), 21211 (invalid `To`), 21602 (missing `Body`), 21617 (`Body` over 1600 characters), 21606 (`From` is not one of the account’s phones), 21610 (opted-out recipient), 21408 (recipient country not allowed), 21620 (`MediaUrl`: MMS is not supported), 21701 (unknown `MessagingServiceSid`), 21609 (invalid `StatusCallback`), 10001 (insufficient credits), otherwise 20000 + the HTTP status (20400 for another invalid parameter, 20409 for a message that cannot be canceled).';
