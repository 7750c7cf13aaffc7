import { MAX_STREAMS_PER_DEVICE, STREAM_CAP_RETRY_AFTER_S } from '@/lib/devices/sessions';
import { STREAM_RECHECK_MS } from '@/lib/notify/outbox';
import { CALLBACK_ID_RETENTION_SECONDS } from './callback';
import { KEEPALIVE_INTERVAL_MS } from './events';
import { INBOX_EXPORT_COUNT_MINUTES, INBOX_EXPORT_MAX_DAYS } from './inbox-export';
import { MAX_PULL } from './messages';
import { SIGNATURE_TOLERANCE_SECONDS } from './signature';

export const REGISTER_APP = [
  'The SMSGate Android app (unmodified, "private server" mode) registers with a pairing code from',
  '`POST /api/v1/phones/{id}/pairing-code`, sent as `Authorization: Code <code>` ("Sign in by code") or',
  '`Authorization: Bearer <code>` (its "private token" field). Basic (login/password) answers 401: passwords',
  'are retired. The phone switches to this device (its earlier devices are revoked) and its SIM check starts:',
  'a code texted to the number (from the operator’s `VERIFICATION_SENDER_PHONE`, another verified phone of',
  'the account, or else the phone itself; see `verifySimCheck` for what each proves); until it arrives, API',
  'sends from the phone answer 403. SIM numbers the app reports (redacted to their last 4 digits) that all',
  'contradict the number: 409 `SIM_MISMATCH`. Every attempt counts against `REGISTER_IP_RATE_LIMIT` (IPv6 by',
  'its /64); past `PAIRING_FAILURES_PER_MINUTE` wrong codes on the server in a minute every attempt answers',
  '429 with `Retry-After`.',
  '',
  'Errors on this surface are `application/json` (the app decodes nothing else) with `message` beside the',
  'problem fields.',
].join('\n');

export const UPDATE_APP =
  '`id` must be this token’s device (else 403). A 401 here is what makes the app register again.';

export const APP_SETTINGS = [
  'What makes the app work without push services: `gateway.notification_channel: SSE_ONLY`, a',
  '`ping.interval_seconds` of half `HEARTBEAT_TIMEOUT_S` (the app’s pings carry its battery level), and',
  '`webhooks.signing_key`, this device’s key for signing its callbacks. The app applies the first two after',
  'it restarts. No value is ever null (a null resets that setting in the app).',
].join('\n');

export const APP_WEBHOOKS =
  "Simgate's own signed callback (`/api/mobile/v1/callback/{deviceId}`, under `APP_URL`) for each event it reads, with distinct ids.";

export const APP_EVENTS_STREAM = [
  '`text/event-stream`. On open: `WebhooksUpdated` and `SettingsUpdated` (the app refetches both); then',
  '`MessageEnqueued` whenever a message is queued for this phone, on any app instance (PostgreSQL',
  `LISTEN/NOTIFY), and when the stream's own look every ${STREAM_RECHECK_MS / 1000} s finds one due (a scheduled one, one pacing held,`,
  `or one handed out long ago and not reported on); a \`:keepalive\` comment every ${KEEPALIVE_INTERVAL_MS / 1000} s.`,
  'Every event carries `data: null`.',
  'An open stream counts as an online heartbeat (on open, then every half `HEARTBEAT_TIMEOUT_S`, each time',
  'after checking the device still speaks for its phone). A device holds at most',
  `${MAX_STREAMS_PER_DEVICE} streams per server instance: a newer one closes its oldest. Past`,
  '`SSE_STREAMS_PER_ACCOUNT` open streams of the account the next answers 429 `RATE_LIMITED`, past',
  `\`SSE_STREAMS_PER_INSTANCE\` of the instance 503 \`SERVICE_UNAVAILABLE\`, both with Retry-After: ${STREAM_CAP_RETRY_AFTER_S}.`,
  'Each open counts against the key’s `API_KEY_RATE_LIMIT`. The stream ends when the device is revoked or',
  'its phone removed.',
].join('\n');

export const PULL_MESSAGES = [
  `Up to ${MAX_PULL} due messages, claimed exactly as \`POST /api/v1/device/outbox/claim\` claims (pacing, now`,
  '`dispatched`), newest first for `order=lifo` (the app’s default), plus messages handed out before and',
  'not yet reported on (the app skips ids it holds). Dates are RFC 3339 UTC with milliseconds.',
].join('\n');

export const REPORT_APP_STATES = [
  'States map onto Simgate’s: `Processed` and `Pending` change nothing (the phone holds it), `Sent` → sent,',
  '`Delivered` → delivered (through sent), `Failed` → failed with the recipient’s `error` (the credit is',
  'refunded), `Cancelled` → failed. A repeated report, an unknown or another phone’s id, and a malformed',
  'item are skipped: the answer is 204 whenever the body is an array.',
].join('\n');

export const APP_CALLBACK = [
  'Body `{ id, webhookId, event, deviceId, payload }`, signed: `X-Signature` is the hex HMAC-SHA256 of the',
  'raw body followed by `X-Timestamp` (unix seconds), keyed with the device’s `webhooks.signing_key`. A wrong',
  `signature, a timestamp more than ${SIGNATURE_TOLERANCE_SECONDS} s off, or a revoked device answers 401.`,
  '`sms:received` → an inbound message (idempotent on `payload.messageId`, which the app repeats on retries;',
  'an SMS carrying its SIM check code, from the number that texted it, verifies the SIM); `sms:sent`, `sms:delivered`,',
  '`sms:failed` → state reports; `system:ping` → a heartbeat with `battery:level`. Other events: 200, ignored.',
  'A call whose `id` this device already sent within the last',
  `${CALLBACK_ID_RETENTION_SECONDS} s answers 200 and changes nothing (a replay, or a retry whose answer was lost). The`,
  '`sender` of `sms:received` must be a phone number (E.164, or national in the phone’s country), a short code',
  'or an alphanumeric sender id of at most 11 characters, without control characters; else 400.',
].join('\n');

export const INBOX_EXPORT_DOC = [
  'Asks a phone paired with the SMSGate app to send again every SMS its inbox received between `since` and',
  `\`until\` (at most ${INBOX_EXPORT_MAX_DAYS} days): the event \`MessagesExportRequested\` on the event stream the app holds`,
  'open. The app answers with one `sms:received` call per SMS; those Simgate already has change nothing, the',
  'others become inbound messages (with their `message.received` events and automation) as if they had just',
  `arrived. For ${INBOX_EXPORT_COUNT_MINUTES} minutes (\`counting_until\`), each re-sent SMS received within the period counts`,
  'on the request: `recovered` (new) or `repeated` (already known); read them with GET on this path.',
  'The app needs the SMS permission to read its inbox. 409 `PHONE_NOT_CONNECTED` when the phone is not paired',
  'with the app or holds no event stream open to this server ("SSE only" in the app’s Cloud server settings).',
].join('\n');
