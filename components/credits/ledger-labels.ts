import type { LedgerEntry } from '@/components/wire';

/** What each ledger kind reads as; the Record keeps it complete when the API adds a kind. */
export const LEDGER_KIND_LABELS: Record<LedgerEntry['kind'], string> = {
  starter_grant: 'starter grant',
  operator_grant: 'operator grant',
  transfer_out: 'transfer out',
  transfer_in: 'transfer in',
  message_charge: 'message charge',
  refund: 'refund',
  group_merge_out: 'group merged away',
  group_merge_in: 'group merged in',
};

export const LEDGER_KINDS = Object.keys(LEDGER_KIND_LABELS) as Array<LedgerEntry['kind']>;
