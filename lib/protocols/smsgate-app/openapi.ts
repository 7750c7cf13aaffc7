import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { type ApiRouteSpec, defineRoute } from '@/lib/openapi/define';
import { z } from '@/lib/zod';
import { KEEPALIVE_INTERVAL_MS } from './events';
import { MAX_PULL } from './messages';
import {
  appMessage,
  appSettings,
  appWebhook,
  callbackParams,
  patchDeviceBody,
  pullQuery,
  registerDeviceBody,
  registeredDevice,
  stateReport,
  stateReportsBody,
} from './schemas';
import { SIGNATURE_TOLERANCE_SECONDS } from './signature';

const TAG = 'SMSGate app (mobile)';
const BASE = '/api/mobile/v1';

/** The app's own surface: Bearer token, plain-JSON errors `{ message, …problem }`. */
function mobile(spec: Omit<ApiRouteSpec, 'tags' | 'errorMediaType' | 'security'> & { bearer?: boolean }): ApiRouteSpec {
  const { bearer = spec.auth === 'device', ...rest } = spec;
  return {
    ...rest,
    path: `${BASE}${spec.path}`,
    tags: [TAG],
    errorMediaType: 'application/json',
    ...(bearer ? { security: [{ AppToken: [] }] } : {}),
  };
}

export function registerSmsGateAppRoutes(registry: OpenAPIRegistry): void {
  registry.registerComponent('securitySchemes', 'AppToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'The token the SMSGate app received when it signed in by code (a device credential, `dk_…`).',
  });
  registry.register('SmsGateMessageState', stateReport);
  const routes: ApiRouteSpec[] = [
    mobile({
      method: 'post',
      path: '/device',
      summary: 'The app signs in by code',
      description: [
        'The SMSGate Android app (unmodified, "private server" mode) registers with a pairing code from',
        '`POST /api/v1/phones/{id}/pairing-code`, sent as `Authorization: Code <code>` ("Sign in by code") or',
        '`Authorization: Bearer <code>` (its "private token" field). Basic (login/password) answers 401: passwords',
        'are retired. The phone switches to this device (its earlier devices are revoked) and its SIM check starts:',
        'a free SMS from the phone to its own number; until it comes back, API sends from the phone answer 403.',
        'SIM numbers the app reports (redacted to their last 4 digits) that all contradict the number: 409',
        '`SIM_MISMATCH`. Every attempt counts against `REGISTER_IP_RATE_LIMIT`.',
        '',
        'Errors on this surface are `application/json` (the app decodes nothing else) with `message` beside the',
        'problem fields.',
      ].join('\n'),
      auth: 'none',
      body: registerDeviceBody,
      response: {
        status: 201,
        description: 'The device: `token` is its credential, shown once.',
        schema: registeredDevice,
      },
      errors: ['UNAUTHENTICATED', 'CODE_EXPIRED', 'SIM_MISMATCH', 'RATE_LIMITED'],
    }),
    mobile({
      method: 'get',
      path: '/device',
      summary: 'The address the server sees, and the device',
      auth: 'device',
      response: {
        status: 200,
        description: '`{ externalIp, device }`',
        schema: z.object({ externalIp: z.string(), device: z.object({ id: z.string(), name: z.string() }).loose() }),
      },
    }),
    mobile({
      method: 'patch',
      path: '/device',
      summary: 'A new push token or SIM list',
      description: '`id` must be this token’s device (else 403). A 401 here is what makes the app register again.',
      auth: 'device',
      body: patchDeviceBody,
      response: { status: 204, description: 'Stored.' },
      errors: ['FORBIDDEN'],
    }),
    mobile({
      method: 'get',
      path: '/settings',
      summary: 'The app’s settings document',
      description: [
        'What makes the app work without push services: `gateway.notification_channel: SSE_ONLY`, a',
        '`ping.interval_seconds` of half `HEARTBEAT_TIMEOUT_S` (the app’s pings carry its battery level), and',
        '`webhooks.signing_key`, this device’s key for signing its callbacks. The app applies the first two after',
        'it restarts. No value is ever null (a null resets that setting in the app).',
      ].join('\n'),
      auth: 'device',
      response: { status: 200, description: 'The settings document.', schema: appSettings },
    }),
    mobile({
      method: 'get',
      path: '/webhooks',
      summary: 'Where the app sends its events',
      description: `Simgate's own signed callback (\`${BASE}/callback/{deviceId}\`, under \`APP_URL\`) for each event it reads, with distinct ids.`,
      auth: 'device',
      response: { status: 200, description: 'The webhooks.', schema: z.array(appWebhook) },
    }),
    mobile({
      method: 'get',
      path: '/events',
      summary: 'Server-Sent Events: new messages as they are queued',
      description: [
        '`text/event-stream`. On open: `WebhooksUpdated` and `SettingsUpdated` (the app refetches both); then',
        '`MessageEnqueued` whenever a message is queued for this phone, on any app instance (PostgreSQL',
        `LISTEN/NOTIFY); a \`:keepalive\` comment every ${KEEPALIVE_INTERVAL_MS / 1000} s. Every event carries \`data: null\`.`,
        'An open stream counts as an online heartbeat (on open, then every half `HEARTBEAT_TIMEOUT_S`).',
      ].join('\n'),
      auth: 'device',
      response: { status: 200, description: 'The event stream.' },
    }),
    mobile({
      method: 'get',
      path: '/message',
      summary: 'Messages for the phone to send',
      description: [
        `Up to ${MAX_PULL} due messages, claimed exactly as \`POST /api/v1/device/outbox/claim\` claims (pacing, now`,
        '`dispatched`), newest first for `order=lifo` (the app’s default), plus messages handed out before and',
        'not yet reported on (the app skips ids it holds). Dates are RFC 3339 UTC with milliseconds.',
      ].join('\n'),
      auth: 'device',
      query: pullQuery,
      response: { status: 200, description: 'The messages, `[]` when none.', schema: z.array(appMessage) },
    }),
    mobile({
      method: 'patch',
      path: '/message',
      summary: 'What became of messages',
      description: [
        'States map onto Simgate’s: `Processed` and `Pending` change nothing (the phone holds it), `Sent` → sent,',
        '`Delivered` → delivered (through sent), `Failed` → failed with the recipient’s `error` (the credit is',
        'refunded), `Cancelled` → failed. A repeated report, an unknown or another phone’s id, and a malformed',
        'item are skipped: the answer is 204 whenever the body is an array.',
      ].join('\n'),
      auth: 'device',
      body: stateReportsBody,
      response: { status: 204, description: 'Applied.' },
    }),
    mobile({
      method: 'post',
      path: '/callback/{deviceId}',
      summary: 'The app’s webhook calls',
      description: [
        'Body `{ id, webhookId, event, deviceId, payload }`, signed: `X-Signature` is the hex HMAC-SHA256 of the',
        'raw body followed by `X-Timestamp` (unix seconds), keyed with the device’s `webhooks.signing_key`. A wrong',
        `signature, a timestamp more than ${SIGNATURE_TOLERANCE_SECONDS} s off, or a revoked device answers 401.`,
        '`sms:received` → an inbound message (idempotent on `payload.messageId`, which the app repeats on retries;',
        'an SMS from the phone’s own number with its SIM check code verifies the SIM); `sms:sent`, `sms:delivered`,',
        '`sms:failed` → state reports; `system:ping` → a heartbeat with `battery:level`. Other events: 200, ignored.',
      ].join('\n'),
      auth: 'none',
      params: callbackParams,
      body: z.object({
        id: z.string(),
        webhookId: z.string(),
        event: z.string(),
        deviceId: z.string(),
        payload: z.record(z.string(), z.unknown()),
      }),
      response: { status: 200, description: 'Taken.', schema: z.object({}) },
      errors: ['UNAUTHENTICATED', 'FORBIDDEN'],
    }),
  ];
  for (const route of routes) defineRoute(registry, route);
}
