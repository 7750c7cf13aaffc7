import { MAX_CONTENT_LENGTH, MAX_RENDERED_TOTAL } from './limits';

/** The delivery state machine, for every operation that shows or moves a message's state. */
export const STATES =
  'Delivery states: `queued` → `dispatched` (claimed by the phone) → `sent` (handed to the carrier) → ' +
  '`delivered` | `failed`; `queued`/`dispatched`/`cancelling` → `expired` after the TTL; ' +
  '`queued`/`dispatched`/`cancelling`/`sent` → `failed`; `queued` → `cancelled` (POST …/cancel); `dispatched` → ' +
  '`cancelling` (POST …/cancel on a message a phone holds: the phone is told) → `cancelled` when the phone ' +
  'confirms, or `sent` when it had sent it. `delivered`, `failed`, `expired` and `cancelled` are final; ' +
  'a failed, expired or cancelled message is refunded. A failure a retry may fix (`error_code`) queues the ' +
  'message again after a backoff, up to `max_attempts` (a `retrying` history entry each); it is charged once. ' +
  'Inbound messages are `received`.';

const FLEET =
  ' **Through a group:** `from_group` instead of `from` (exactly one, else 400) charges that group and picks one ' +
  'of its online, SIM-verified phones: the phone the recipient last heard from while it is online (so replies ' +
  'land in one conversation), else the one whose queue drains soonest under its pacing. Queued group messages ' +
  'move to another online phone of the group when theirs goes offline, and a handed-out one moves when its ' +
  'phone reports a failure another phone may not have (`error_code`); each move is a `rerouted` history entry ' +
  'and a `message.rerouted` event, charged no more. A message sent `from` one phone never moves. With no ' +
  'online phone the message waits (until its TTL) unless `require_online: true` asks for 409 NO_ONLINE_PHONE. ' +
  '**SIM:** `sim` (1 or 2) picks the slot; a slot the phone has not reported answers 400. **Opt-outs:** a ' +
  'number that texted STOP to any of your phones answers 422 RECIPIENT_OPTED_OUT and is charged nothing. ' +
  '**Dry run:** `dry_run: true` answers 200 with the rendered text, segments, credits and the balance after, ' +
  'and writes nothing.';

export const SEND_MESSAGE =
  'Queues one SMS for the sender phone and charges one credit from its group. Checks run in this order: ' +
  'authentication, validation, sender ownership (403 FORBIDDEN; 404 GROUP_NOT_FOUND for another account’s ' +
  '`from_group`), SIM slot (400), request_id (409 DUPLICATE_REQUEST with `message_id` of the existing message), ' +
  'opt-out (422 RECIPIENT_OPTED_OUT), credits (402 INSUFFICIENT_CREDITS). `send_at` schedules it; ' +
  `\`ttl_s\` bounds how long it may wait before it expires.${FLEET} ${STATES}`;

export const SEND_BULK =
  'One message per distinct recipient (1 to 1,000; repeats are sent once). **Templates:** a recipient may be ' +
  '`{ to, vars: { name: "Ada" } }`, filling `{{name}}` in `content`; the rendered text is what is stored, ' +
  'counted and sent. A recipient missing a variable, or who opted out (STOP), is listed in `rejected` with its ' +
  'code and is not charged; the others go out. All or nothing on credits for those: one credit per message, ' +
  '402 if the group cannot cover them all. When every recipient is rejected: 422 RECIPIENT_OPTED_OUT if all ' +
  'opted out, else 400 naming each field. An invalid number is named in `errors` as `recipients.<index>`. ' +
  `A rendered text over ${MAX_CONTENT_LENGTH} characters rejects its recipient; the texts together may hold ` +
  `${MAX_RENDERED_TOTAL.toLocaleString('en-US')} characters (413 PAYLOAD_TOO_LARGE naming \`recipients\`). ` +
  '`from_group` spreads the recipients over the group’s online phones (sticky per recipient), `sim` and ' +
  '`dry_run` work as for a single send.';

export const CLAIM_OUTBOX =
  'Hands the phone its oldest due queued messages, now `dispatched`; concurrent claims never share one. ' +
  '`?wait=N` (seconds, at most 30) long-polls while none is queued and answers as soon as one is sent. ' +
  'Pacing holds: never more than the phone’s `messages_per_minute` in a rolling minute, nor past its ' +
  '`daily_cap` per UTC day. `high`-priority messages come first. Outside the send window of the phone’s group ' +
  '(or account) only `high` ones are handed out, and a long-poll sleeps until the window opens. The body is optional. ' +
  'A long-poll whose device is revoked (or whose phone is removed) while it waits ends at once with 401. ' +
  '`cancel` lists the messages this phone holds that were cancelled since it was handed them (`cancelling`): ' +
  'the phone drops each one not sent yet and reports `cancelled` (or `sent` when it already went); a long-poll ' +
  'answers at once when a cancel arrives while it waits. ' +
  'A device holds at most 2 waiting claims per server instance: a third answers its oldest at once with what it ' +
  'has (usually nothing). Past `WAITING_CLAIMS_PER_ACCOUNT` waiting claims of the account the next answers 429 ' +
  '`RATE_LIMITED`, past `WAITING_CLAIMS_PER_INSTANCE` of the instance 503 `SERVICE_UNAVAILABLE`, both with ' +
  'Retry-After: 10. A claim without `wait` is never refused by these caps.';

export const REPORT_STATUS = `Moves a message of this phone to \`sent\`, \`delivered\` or \`failed\`, or a message it was asked to drop (\`cancelling\`, listed in the claim answer's \`cancel\`) to \`cancelled\` (refunded). ${STATES}`;

export const RECORD_RECEIVED =
  'Creates an inbound message (`received`) and emits `message.received`. A retry with the same ' +
  '`device_message_id` answers 200 with the message already recorded, and emits nothing. So does a ' +
  'duplicate: the same text from the same sender to this phone within the account’s ' +
  '`inbound_dedup_seconds` (Settings → Sending, default 120, 0: off) of one recorded, under any ' +
  '`device_message_id` or none: it answers 200 with the first message and `duplicate_of` set to its id, stores ' +
  'nothing, and triggers no webhook, rule or opt-out again.';
