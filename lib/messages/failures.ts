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
