import { CODE_LIFETIME_SECONDS, MAX_WRONG_ATTEMPTS } from '@/lib/auth/codes';
import { PAIRING_CODE_LIFETIME_SECONDS } from './pairing';

const minutes = CODE_LIFETIME_SECONDS / 60;

export const REGISTER_DEVICE = [
  'Records a pending device and texts a 6-digit code to `phone_number` (in local mode, to the dev inbox).',
  `The code lives ${minutes} minutes. \`country_code\`, when given, must be the number's country.`,
  '',
  'Rate limits, counted in the database across instances: per number `VERIFICATION_RATE_LIMIT` (default 5)',
  'per rolling `VERIFICATION_RATE_WINDOW_S` (default 3600 s), and per client IP `REGISTER_IP_RATE_LIMIT`',
  '(default 100) per hour. Over either: 429 `RATE_LIMITED` with `Retry-After` (seconds until the oldest',
  'counted request leaves the window). Refused requests are not counted.',
].join('\n');

export const VERIFY_SIM = [
  'Proves the device holds the SIM and issues its device key (`dk_…`), shown only in this answer.',
  `A wrong code answers 400 \`INVALID_CODE\`; after ${MAX_WRONG_ATTEMPTS} wrong tries the code is burnt and,`,
  `like a code older than ${minutes} minutes, answers 410 \`CODE_EXPIRED\` (even to the right code): register again`,
  'for a new one. A device that is already verified answers 409 `INVALID_TRANSITION`.',
].join('\n');

export const CREATE_PAIRING_CODE = [
  'For the unmodified SMSGate Android app ("SMS Gateway for Android"): in the app, Settings → Cloud server,',
  'choose "SSE only", set the server address to `server_url`, then on Home choose "Sign in by code" and type',
  `\`code\`: 8 digits (the app's field takes digits only), single use, valid ${PAIRING_CODE_LIFETIME_SECONDS / 60} minutes, stored hashed.`,
  'A new code voids the phone’s earlier one. Limited per account: `PAIRING_RATE_LIMIT` (default 10) an hour.',
  'A code stops working once `PAIRING_CODE_MAX_FAILURES` (default 50) wrong codes were tried on the server',
  'since it was issued.',
].join('\n');

export const VERIFY_SIM_BY_CODE = [
  'A phone paired with the SMSGate app is texted a 6-digit code; the SIM is verified when the app reports',
  'that SMS received from the number that sent it, or when the code shown on the phone is typed here.',
  '',
  'Who texts the code decides what the check proves. With `VERIFICATION_SENDER_PHONE` set, the operator’s',
  'phone texts it; else another phone of the account whose SIM is verified; the phone being checked is then',
  'never handed the code, so only a phone that receives SMS for the number can know it (a carrier-delivered',
  'code; from another phone of the account it proves as much as that phone is trusted). Otherwise the phone',
  'texts its own number (loopback): its app is handed the code by `GET /message` and could report it back in',
  'a signed `sms:received` with no SIM at all, so a loopback proves only that whoever holds the app’s token',
  'controls the app, not that the app sits behind the number.',
  '',
  'Wrong: 400 `INVALID_CODE` (5 tries); older than 10 minutes: 410 `CODE_EXPIRED` (send the check again);',
  'no check under way: 409 `INVALID_TRANSITION`.',
].join('\n');

export const RESEND_SIM_CHECK =
  'Texts a new code from the same kind of sender as the first check (the operator’s phone, another verified phone of the account, or the phone itself); every earlier check not yet sent is dropped, the operator’s included (refunded to it). At most `SIM_CHECK_RESENDS_PER_HOUR` (3) resends per phone in any hour, then 429 with Retry-After.';

export const REVOKE_PHONE_DEVICE =
  'Its key or app token stops working at once on this instance (within `KEY_CACHE_TTL_MS` on others); the phone has no device until one is paired again. Revoking twice answers 204.';
