// The message states as the dashboard reads them: components reach the schema's plain constants
// through lib/, never db/ directly.
export { FINAL_MESSAGE_STATUSES } from '@/db/schema/message-states';
