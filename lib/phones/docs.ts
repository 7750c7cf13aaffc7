export const CREATE_PHONE =
  'Adds a number to the account, in `group_id` or the default group. Counts toward the plan’s phone maximum. ' +
  'A phone activated through device registration is added automatically.';

export const UPDATE_PHONE =
  'Changes the label, the group, or the pacing: `messages_per_minute` (1–60) and `daily_cap` ' +
  '(null for none) bound how fast the phone is handed messages. Fields left out keep their value.';

export const DELETE_PHONE =
  'Removes the phone and its messages. Outbound messages not yet handed to the carrier are refunded first.';
