import { POST as callback } from '@/app/api/mobile/v1/callback/[deviceId]/route';
import { POST as registerDevice } from '@/app/api/mobile/v1/device/route';
import { GET as pull } from '@/app/api/mobile/v1/message/route';
import { GET as settings } from '@/app/api/mobile/v1/settings/route';
import { POST as pairingCode } from '@/app/api/v1/phones/[id]/pairing-code/route';
import { appSignature } from '@/lib/protocols/smsgate-app/signature';
import type { TestAccount } from './fixtures';
import { type CallResult, call } from './http';

/**
 * Plays the SMSGate app against the route handlers in process, with its exact wire: camelCase
 * JSON, `Authorization: Code|Bearer`, and webhook calls signed over the raw body (Gson escapes
 * `<`, `>`, `&`, `=` and `'`).
 */
export type PairedApp = { deviceId: string; token: string; signingKey: string; phone: string };

export async function newPairingCode(account: TestAccount, phoneId = account.phoneId): Promise<string> {
  const res = await call(pairingCode, { method: 'POST', params: { id: phoneId }, apiKey: account.apiKey });
  if (res.status !== 201) throw new Error(`pairing code: ${res.status} ${res.text}`);
  return res.body.code;
}

export function registerWith(
  authorization: string | undefined,
  body: unknown = { name: 'Google/pixel', simCards: [] },
) {
  return call(registerDevice, {
    method: 'POST',
    path: '/api/mobile/v1/device',
    body,
    headers: authorization ? { authorization } : {},
  });
}

export async function pairApp(
  account: TestAccount,
  phoneId = account.phoneId,
  phone = account.phone,
): Promise<PairedApp> {
  const code = await newPairingCode(account, phoneId);
  const res = await registerWith(`Code ${code}`);
  if (res.status !== 201) throw new Error(`register: ${res.status} ${res.text}`);
  const doc = await call(settings, { headers: { authorization: `Bearer ${res.body.token}` } });
  return { deviceId: res.body.id, token: res.body.token, signingKey: doc.body.webhooks.signing_key, phone };
}

export const bearer = (app: PairedApp) => ({ authorization: `Bearer ${app.token}` });

/** GET /message as the app pulls. */
export async function pullAs(app: PairedApp, order = 'lifo') {
  const res = await call(pull, { path: `/api/mobile/v1/message?order=${order}`, headers: bearer(app) });
  if (res.status !== 200) throw new Error(`pull: ${res.status} ${res.text}`);
  return res.body as Array<{ id: string; textMessage: { text: string }; phoneNumbers: string[] }>;
}

/** Gson's HTML-safe escaping, which the app's signature covers. */
export function gsonJson(value: unknown): string {
  return JSON.stringify(value).replace(
    /[<>&='\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

export function signedCallback(
  app: PairedApp,
  event: string,
  payload: Record<string, unknown>,
  options: { id?: string; key?: string; timestamp?: number; tamper?: (body: string) => string } = {},
): Promise<CallResult> {
  const body = gsonJson({
    id: options.id ?? crypto.randomUUID().slice(0, 21),
    webhookId: 'x',
    event,
    deviceId: app.deviceId,
    payload,
  });
  const timestamp = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const signature = appSignature(options.key ?? app.signingKey, new TextEncoder().encode(body), timestamp);
  return call(callback, {
    method: 'POST',
    params: { deviceId: app.deviceId },
    rawBody: options.tamper ? options.tamper(body) : body,
    headers: { 'content-type': 'application/json', 'x-signature': signature, 'x-timestamp': timestamp },
  });
}

/** The SIM check's code, as the phone holding the message sees it. */
export function codeIn(text: string): string {
  const code = /\b(\d{6})\b/.exec(text)?.[1];
  if (!code) throw new Error(`no code in "${text}"`);
  return code;
}

/** Pairs an app and completes its loopback SIM check, as a phone whose carrier delivers self-addressed SMS. */
export async function pairVerifiedApp(account: TestAccount): Promise<PairedApp> {
  const app = await pairApp(account);
  const check = (await pullAs(app)).find((m) => m.phoneNumbers.includes(app.phone));
  if (!check) throw new Error('no SIM check message pulled');
  const res = await signedCallback(app, 'sms:received', {
    messageId: `loop-${check.id}`,
    message: check.textMessage.text,
    sender: app.phone,
    receivedAt: new Date().toISOString(),
  });
  if (res.status !== 200) throw new Error(`loopback: ${res.status} ${res.text}`);
  return app;
}
