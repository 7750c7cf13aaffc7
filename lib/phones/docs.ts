export const CREATE_PHONE =
  'Adds a number to the account, in `group_id` or the default group. Counts toward the plan’s phone maximum. ' +
  'A phone activated through device registration is added automatically.';

export const UPDATE_PHONE =
  'Changes the label, the group, or the pacing and quotas of the phone (of each of its SIMs). `messages_per_minute` (1–60), ' +
  '`hourly_cap` (messages in any 60 minutes) and `daily_cap` (messages a UTC day) bound how fast the phone is ' +
  'handed messages: a message over a cap stays `queued`, its `held_reason` saying which, until the window opens. ' +
  '`monthly_recipient_cap` bounds the distinct numbers the phone texts in a calendar month (UTC): a send `from` ' +
  'the phone to a new number past it answers 422 `RECIPIENT_QUOTA_REACHED`, and group sends choose another phone; ' +
  'a number it texted already this month never counts again. `jitter_seconds` (0–300) waits a random delay of up ' +
  'to that long between two of its messages. A cap of null is none. Fields left out keep their value; `usage` ' +
  'shows what counts against each cap now. A phone whose device reports two or more SIM slots is that many SIMs: ' +
  'each SIM has these caps and counts apart (a message without `sim` counts for the first slot), and `usage.sims` ' +
  'shows each SIM’s counts.';

export const DELETE_PHONE =
  'Removes the phone and its messages. Outbound messages not yet handed to the carrier are refunded first.';
