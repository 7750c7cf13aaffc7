/**
 * Android SmsManager results that another try (here: another phone of the group) can fix; any
 * other failure is final. A phone names one in `error_code`, or as the text of its `error`.
 */
export const RETRYABLE_ERRORS = [
  'RESULT_ERROR_GENERIC_FAILURE',
  'RESULT_ERROR_RADIO_OFF',
  'RESULT_ERROR_NULL_PDU',
  'RESULT_ERROR_NO_SERVICE',
  'RESULT_ERROR_LIMIT_EXCEEDED',
] as const;
export type RetryableError = (typeof RETRYABLE_ERRORS)[number];

export function isRetryableFailure(errorCode: string | undefined, error: string | undefined): boolean {
  const said = `${errorCode ?? ''} ${error ?? ''}`.toUpperCase();
  return RETRYABLE_ERRORS.some((code) => said.includes(code));
}

/** Android's SMS limiter: the phone that reports it is paused (lib/phones/pause.ts). */
export const LIMIT_EXCEEDED: RetryableError = 'RESULT_ERROR_LIMIT_EXCEEDED';

/** Whether a failure report is Android's limiter (its `error_code`, or the SMSGate app's error text). */
export function isLimitExceeded(errorCode: string | undefined, error: string | undefined): boolean {
  return `${errorCode ?? ''} ${error ?? ''}`.toUpperCase().includes(LIMIT_EXCEEDED);
}
