// Plain constants (no drizzle), so that the dashboard can read the message states without the schema.

export const MESSAGE_STATUSES = [
  'queued',
  'dispatched',
  'cancelling',
  'sent',
  'delivered',
  'failed',
  'expired',
  'cancelled',
  'received',
] as const;
export type MessageStatus = (typeof MESSAGE_STATUSES)[number];
/**
 * The states a message never leaves (lib/messages/state-machine.ts allows no move out of them):
 * only such a message's content may be purged by retention (lib/retention).
 */
export const FINAL_MESSAGE_STATUSES: ReadonlySet<MessageStatus> = new Set([
  'delivered',
  'failed',
  'expired',
  'cancelled',
  'received',
]);
