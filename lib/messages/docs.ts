/** The delivery state machine, for every operation that shows or moves a message's state. */
export const STATES =
  'Delivery states: `queued` → `dispatched` (claimed by the phone) → `sent` (handed to the carrier) → ' +
  '`delivered` | `failed`; `queued`/`dispatched` → `expired` after the TTL; `queued`/`dispatched`/`sent` → ' +
  '`failed`. `delivered`, `failed` and `expired` are final; a failed or expired message is refunded. ' +
  'Inbound messages are `received`.';

export const SEND_MESSAGE =
  'Queues one SMS for the sender phone and charges one credit from its group. Checks run in this order: ' +
  'authentication, validation, sender ownership (403 FORBIDDEN), request_id (409 DUPLICATE_REQUEST with ' +
  '`message_id` of the existing message), credits (402 INSUFFICIENT_CREDITS). `send_at` schedules it; ' +
  `\`ttl_s\` bounds how long it may wait before it expires. ${STATES}`;

export const SEND_BULK =
  'One message per distinct recipient (1 to 1,000; repeats are sent once). All or nothing on credits: ' +
  'one credit per recipient, 402 if the sender’s group cannot cover them all. Each invalid recipient is ' +
  'named in `errors` as `recipients.<index>`.';

export const CLAIM_OUTBOX =
  'Hands the phone its oldest due queued messages, now `dispatched`; concurrent claims never share one. ' +
  '`?wait=N` (seconds, at most 30) long-polls while none is queued and answers as soon as one is sent. ' +
  'Pacing holds: never more than the phone’s `messages_per_minute` in a rolling minute, nor past its ' +
  '`daily_cap` per UTC day. The body is optional.';

export const REPORT_STATUS = `Moves a message of this phone to \`sent\`, \`delivered\` or \`failed\`. ${STATES}`;

export const RECORD_RECEIVED =
  'Creates an inbound message (`received`) and emits `message.received`. A retry with the same ' +
  '`device_message_id` answers 200 with the message already recorded, and emits nothing.';
