// The schema's plain constants that screens and adapters read: they reach them through lib/, never
// db/ directly.

export type { MessageStatus } from '@/db/schema';
export { FINAL_MESSAGE_STATUSES } from '@/db/schema/message-states';
export { SIM_SLOTS } from '@/db/schema/messages';
