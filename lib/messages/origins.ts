import type { MessageOriginKind } from '@/db/schema';
import type { AcceptedSurface } from '@/lib/metrics/registry';

/**
 * Who asks the gateway to text someone: every producer of an outbound SMS names one of these
 * origins when it calls the pipeline (lib/messages/pipeline.ts), and ORIGINS below says what the
 * pipeline's screen stage applies to it. Producers differ in nothing else.
 *
 * API callers (`api`, `smsgate_api`, `twilio`, and the doors `smpp`, `mcp`, `email`) chose their recipients themselves; the automatic
 * origins are texts the gateway sends on its own, because an inbound message or a sign-up asked
 * it to, so they pass the stricter screens of the automatic-SMS gate (lib/messages/gate.ts).
 */
export const API_ORIGINS = ['api', 'smsgate_api', 'twilio', 'smpp', 'mcp', 'email'] as const;
export const AUTOMATIC_ORIGINS = [
  'rule_reply',
  'help_reply',
  'webhook_reply',
  'twiml_reply',
  'opt_out_confirmation',
  'sim_check',
  'verification_code',
] as const;
export const OUTBOUND_ORIGINS = [...API_ORIGINS, ...AUTOMATIC_ORIGINS] as const;

export type ApiOrigin = (typeof API_ORIGINS)[number];
export type AutomaticOrigin = (typeof AUTOMATIC_ORIGINS)[number];
export type OutboundOrigin = (typeof OUTBOUND_ORIGINS)[number];

/**
 * The screens of one origin:
 * - optOut: the recipient must not have opted out of the sending account. An opt-out's
 *   confirmation must reach the number that has just opted out (once); a verification code or
 *   SIM check is asked for by whoever names the number, not by its owner, so a STOP holds.
 * - country: `listed` — the recipient's country must be in the sending group's or account's
 *   allowed_countries when either lists any; `listed_or_phones` — as `listed`, and where neither
 *   lists any, the country of one of the account's phones, so that a stranger abroad cannot make
 *   the account text international numbers.
 * - premiumRate: premium-rate and shared-cost numbers are refused unless AUTO_SMS_PREMIUM_RATE=1.
 * - caps: `none` beyond the account's credits; `automatic` is AUTO_REPLY_LIMIT per counterpart
 *   number and AUTO_SMS_ACCOUNT_HOURLY_LIMIT per account in any hour (counted by the gate under
 *   locks); `resends` is SIM_CHECK_RESENDS_PER_HOUR per phone (counted by lib/phones/sim-check.ts);
 *   `verification` is VERIFICATION_RATE_LIMIT per number and REGISTER_IP_RATE_LIMIT per address
 *   (counted by lib/devices/register.ts).
 * - credits: `sender` — the sending phone's group pays one credit a message; `operator` — the
 *   operator's phone (VERIFICATION_SENDER_PHONE) pays, and a check from the account's own
 *   phones is free.
 */
export type Screens = {
  optOut: boolean;
  country: 'listed' | 'listed_or_phones' | 'none';
  premiumRate: boolean;
  caps: 'none' | 'automatic' | 'resends' | 'verification';
  credits: 'sender' | 'operator';
};

type Origin = {
  screens: Screens;
  /** The `surface` label of simgate_messages_accepted_total. */
  surface: AcceptedSurface;
  /** How the message row names an automatic SMS that answers an inbound message (messages.origin_kind). */
  rowKind?: MessageOriginKind;
};

const API: Screens = { optOut: true, country: 'listed', premiumRate: false, caps: 'none', credits: 'sender' };
const AUTO: Screens = {
  optOut: true,
  country: 'listed_or_phones',
  premiumRate: true,
  caps: 'automatic',
  credits: 'sender',
};

// biome-ignore format: one row per origin, read as a table
export const ORIGINS: Record<OutboundOrigin, Origin> = {
  api:                  { surface: 'v1',         screens: API },
  smsgate_api:          { surface: '3rdparty',   screens: API },
  twilio:               { surface: 'twilio',     screens: API },
  smpp:                 { surface: 'smpp',       screens: API },
  mcp:                  { surface: 'mcp',        screens: API },
  email:                { surface: 'email',      screens: API },
  rule_reply:           { surface: 'automation', screens: AUTO, rowKind: 'rule' },
  help_reply:           { surface: 'automation', screens: AUTO, rowKind: 'help' },
  webhook_reply:        { surface: 'automation', screens: AUTO, rowKind: 'webhook_reply' },
  twiml_reply:          { surface: 'automation', screens: AUTO, rowKind: 'webhook_reply' },
  opt_out_confirmation: { surface: 'automation', screens: { ...AUTO, optOut: false } },
  sim_check:            { surface: 'system',     screens: { ...AUTO, caps: 'resends', credits: 'operator' } },
  verification_code:    { surface: 'system',     screens: { ...AUTO, caps: 'verification' } },
};

/**
 * An encrypted send (the SMSGate app's end-to-end encryption, lib/messages/encrypted.ts) carries
 * its number as ciphertext: no screen that reads the number can apply, whatever its origin. It is
 * only accepted from one phone paired with the app, and each message costs a credit.
 */
export const ENCRYPTED_SCREENS: Screens = {
  optOut: false,
  country: 'none',
  premiumRate: false,
  caps: 'none',
  credits: 'sender',
};

export function isAutomaticOrigin(origin: OutboundOrigin): origin is AutomaticOrigin {
  return (AUTOMATIC_ORIGINS as readonly string[]).includes(origin);
}

/** The screens the pipeline applies to a request of this origin. */
export function screensOf(origin: OutboundOrigin, encrypted = false): Screens {
  return encrypted ? ENCRYPTED_SCREENS : ORIGINS[origin].screens;
}
