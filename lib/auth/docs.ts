import { CODE_LIFETIME_SECONDS, MAX_WRONG_ATTEMPTS } from './codes';

const minutes = CODE_LIFETIME_SECONDS / 60;

/** How every emailed or texted code behaves; the routes that take one say so. */
export const CODE_RULES =
  `Codes have 6 digits and live ${minutes} minutes. A wrong code answers 400 \`INVALID_CODE\`; after ` +
  `${MAX_WRONG_ATTEMPTS} wrong tries the code is burnt and answers 410 \`CODE_EXPIRED\`, as an expired code does: ask for a new one.`;

export const SIGN_IN_REQUEST_CODE =
  'Emails a one-time code for signing in to the dashboard (`/sign-in`). Answers 202 whether or not the ' +
  'email has an account, so it does not reveal who has one. Limited like verification requests, per email and per client IP. ' +
  CODE_RULES;

export const RETIRED_PASSWORD_AUTH =
  'Password sign-in is retired and this endpoint is removed in the next release. Activate a device instead.';

export const BIND_REQUEST_CODE =
  'Takes the device key of a verified device (or of an activated one, for its own account’s email). ' +
  `Limited per device like verification requests. ${CODE_RULES}`;

export const BIND_CONFIRM = [
  'Activates the device in the account of the bound email: an email no account has yet creates the account',
  '(default group `Default`, starter credits, free plan); an existing account is joined. The device’s number',
  'becomes a phone of the account in the default group (if it is not one already, in which case that phone',
  'switches to this device and the account’s previous device on that number is revoked). Adding the phone counts',
  'toward the plan: over the limit, 403 `PLAN_LIMIT_REACHED` and nothing is activated.',
  '',
  CODE_RULES,
].join('\n');

export const CREATE_API_KEY =
  'Takes the device key of an activated device, an account key, or the dashboard session. The key (`sk_…`) ' +
  'is in this answer only; the service keeps its hash. A device key of a device without a bound email answers ' +
  '403 `DEVICE_NOT_ACTIVATED`. `role` bounds what the key may do, as a member of that role may (a `viewer` key ' +
  'reads and cannot send: 403 `FORBIDDEN`); a member creates keys of their own role or below only. Without `role`, ' +
  'a key made by an owner, an admin, a device or a key without a role may do everything; one made by a ' +
  'developer, operator or viewer (or by a key with a role) gets that role.';

export const REVOKE_API_KEY =
  'Takes effect at once on this instance and within `KEY_CACHE_TTL_MS` (default 5 s) on others; a dashboard ' +
  'session opened with the key ends too. Revoking a revoked key answers 204 again.';

export const END_ALL_SESSIONS =
  'Ends every dashboard session of the signed-in member at once, on every browser, the calling one included: a ' +
  'session cookie issued before this call answers 401 `UNAUTHENTICATED` from then on, copies of it too. ' +
  'The dashboard’s sign-out calls it, so signing out in one browser signs out the others; other members stay ' +
  'signed in. Called with an account key (or a session a key opened), it ends every session of the account. ' +
  'API keys are not affected. Takes an account key or the session.';
