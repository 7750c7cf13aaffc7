import smpp from 'smpp';
import { DomainError, type ErrorCode } from '@/lib/errors';

// A CommonJS package: its exports come as the default export under Node's ESM loader.
const { errors } = smpp;

/** SMPP command_status values Simgate answers with (SMPP 3.4, §5.1.3). */
export const STATUS = {
  ESME_ROK: 0x0000,
  ESME_RINVMSGLEN: 0x0001,
  ESME_RINVCMDID: 0x0003,
  ESME_RINVBNDSTS: 0x0004,
  ESME_RALYBND: 0x0005,
  ESME_RSYSERR: 0x0008,
  ESME_RINVSRCADR: 0x000a,
  ESME_RINVDSTADR: 0x000b,
  ESME_RBINDFAIL: 0x000d,
  ESME_RINVPASWD: 0x000e,
  ESME_RINVSYSID: 0x000f,
  ESME_RMSGQFUL: 0x0014,
  ESME_RSUBMITFAIL: 0x0045,
  ESME_RTHROTTLED: 0x0058,
  ESME_RINVSCHED: 0x0061,
  ESME_RINVEXPIRY: 0x0062,
  ESME_RX_T_APPN: 0x0064,
  ESME_RINVDCS: 0x0104,
} as const;
export type StatusName = keyof typeof STATUS;

const NAME_OF = new Map<number, string>(Object.entries(errors).map(([name, code]) => [code, name]));

/** A status's name for the metrics label: bounded to SMPP's table, `other` beyond it. */
export function statusName(code: number): string {
  return NAME_OF.get(code) ?? (code === 0 ? 'ESME_ROK' : 'other');
}

/**
 * How a refusal of the pipeline answers submit_sm (docs/smpp.md, "Statuses"). A field that fails
 * validation names its address, length or time; a refusal of the recipient or the account
 * (opt-out, country, credits, no phone) is ESME_RSUBMITFAIL: retrying it will not help.
 */
export const SUBMIT_REFUSALS: Partial<Record<ErrorCode, StatusName>> = {
  FORBIDDEN: 'ESME_RINVSRCADR',
  GROUP_NOT_FOUND: 'ESME_RINVSRCADR',
  RECIPIENT_OPTED_OUT: 'ESME_RSUBMITFAIL',
  RECIPIENT_COUNTRY_NOT_ALLOWED: 'ESME_RSUBMITFAIL',
  INSUFFICIENT_CREDITS: 'ESME_RSUBMITFAIL',
  NO_ONLINE_PHONE: 'ESME_RSUBMITFAIL',
  SIM_MISMATCH: 'ESME_RSUBMITFAIL',
  RATE_LIMITED: 'ESME_RTHROTTLED',
  SERVICE_UNAVAILABLE: 'ESME_RX_T_APPN',
};

const FIELD_REFUSALS: Record<string, StatusName> = {
  to: 'ESME_RINVDSTADR',
  from: 'ESME_RINVSRCADR',
  content: 'ESME_RINVMSGLEN',
  send_at: 'ESME_RINVSCHED',
  ttl_s: 'ESME_RINVEXPIRY',
};

/** The submit_sm_resp status of an error thrown by the pipeline; undefined for an unexpected one. */
export function submitStatusOf(error: unknown): StatusName | undefined {
  if (!(error instanceof DomainError)) return undefined;
  if (error.code === 'VALIDATION_ERROR') return FIELD_REFUSALS[error.errors?.[0]?.path ?? ''] ?? 'ESME_RSUBMITFAIL';
  return SUBMIT_REFUSALS[error.code] ?? 'ESME_RSUBMITFAIL';
}
