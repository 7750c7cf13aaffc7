import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { CODE_LIFETIME_SECONDS, MAX_WRONG_ATTEMPTS } from '@/lib/auth/codes';
import { defineRoute } from '@/lib/openapi/define';
import { phoneIdParams, phoneSchema } from '@/lib/phones/schemas';
import { z } from '@/lib/zod';
import { PAIRING_CODE_LIFETIME_SECONDS } from './pairing';
import {
  deviceIdParams,
  pairingCodeResponse,
  phoneDeviceSchema,
  registerDeviceBody,
  registerDeviceResponse,
  simCheckBody,
  verifySimBody,
  verifySimResponse,
} from './schemas';

const tags = ['Device activation'];
const minutes = CODE_LIFETIME_SECONDS / 60;

export function registerDevicesRoutes(registry: OpenAPIRegistry): void {
  defineRoute(registry, {
    method: 'post',
    path: '/api/v1/phones/register-device',
    summary: 'Step 1: register a device by its number',
    description: [
      'Records a pending device and texts a 6-digit code to `phone_number` (in local mode, to the dev inbox).',
      `The code lives ${minutes} minutes. \`country_code\`, when given, must be the number's country.`,
      '',
      'Rate limits, counted in the database across instances: per number `VERIFICATION_RATE_LIMIT` (default 5)',
      'per rolling `VERIFICATION_RATE_WINDOW_S` (default 3600 s), and per client IP `REGISTER_IP_RATE_LIMIT`',
      '(default 100) per hour. Over either: 429 `RATE_LIMITED` with `Retry-After` (seconds until the oldest',
      'counted request leaves the window). Refused requests are not counted.',
    ].join('\n'),
    tags,
    auth: 'none',
    body: registerDeviceBody,
    response: {
      status: 201,
      description: 'The pending device; the code is on its way.',
      schema: registerDeviceResponse,
    },
    errors: ['RATE_LIMITED', 'SERVICE_UNAVAILABLE'],
  });
  defineRoute(registry, {
    method: 'post',
    path: '/api/v1/phones/verify-sim',
    summary: 'Step 2: verify the SIM with the texted code',
    description: [
      'Proves the device holds the SIM and issues its device key (`dk_…`), shown only in this answer.',
      `A wrong code answers 400 \`INVALID_CODE\`; after ${MAX_WRONG_ATTEMPTS} wrong tries the code is burnt and,`,
      `like a code older than ${minutes} minutes, answers 410 \`CODE_EXPIRED\` (even to the right code): register again`,
      'for a new one. A device that is already verified answers 409 `INVALID_TRANSITION`.',
    ].join('\n'),
    tags,
    auth: 'none',
    body: verifySimBody,
    response: { status: 200, description: 'The verified device and its key.', schema: verifySimResponse },
    errors: ['INVALID_CODE', 'CODE_EXPIRED', 'NOT_FOUND', 'INVALID_TRANSITION'],
  });
  registerPairingRoutes(registry);
}

const phoneTags = ['Phones', 'SMSGate app (mobile)'];

function registerPairingRoutes(registry: OpenAPIRegistry): void {
  defineRoute(registry, {
    method: 'post',
    path: '/api/v1/phones/{id}/pairing-code',
    summary: 'A code that pairs the SMSGate app with this phone',
    description: [
      'For the unmodified SMSGate Android app ("SMS Gateway for Android"): in the app, Settings → Cloud server,',
      'choose "SSE only", set the server address to `server_url`, then on Home choose "Sign in by code" and type',
      `\`code\`: 8 digits (the app's field takes digits only), single use, valid ${PAIRING_CODE_LIFETIME_SECONDS / 60} minutes, stored hashed.`,
      'A new code voids the phone’s earlier one. Limited per account: `PAIRING_RATE_LIMIT` (default 10) an hour.',
    ].join('\n'),
    tags: phoneTags,
    auth: 'account',
    params: phoneIdParams,
    response: { status: 201, description: 'The code.', schema: pairingCodeResponse },
    errors: ['NOT_FOUND', 'RATE_LIMITED'],
  });
  defineRoute(registry, {
    method: 'post',
    path: '/api/v1/phones/{id}/sim-check',
    summary: 'Prove the SIM by the code of the check SMS',
    description: [
      'A phone paired with the SMSGate app texts a 6-digit code to its own number; when the app reports that SMS',
      'received, the SIM is verified by itself. Where the carrier does not deliver a self-addressed SMS, type the',
      'code shown on the phone here. Wrong: 400 `INVALID_CODE` (5 tries); older than 10 minutes: 410',
      '`CODE_EXPIRED` (send the check again); no check under way: 409 `INVALID_TRANSITION`.',
    ].join('\n'),
    tags: phoneTags,
    auth: 'account',
    params: phoneIdParams,
    body: simCheckBody,
    response: { status: 200, description: 'The phone, `sim_verification: verified`.', schema: phoneSchema },
    errors: ['NOT_FOUND', 'INVALID_CODE', 'CODE_EXPIRED', 'INVALID_TRANSITION'],
  });
  defineRoute(registry, {
    method: 'post',
    path: '/api/v1/phones/{id}/sim-check/resend',
    summary: 'Send the SIM check SMS again',
    description: 'Queues a new loopback SMS with a new code (the earlier check is dropped if it was not yet sent).',
    tags: phoneTags,
    auth: 'account',
    params: phoneIdParams,
    response: { status: 202, description: 'The phone; the check is on its way.', schema: phoneSchema },
    errors: ['NOT_FOUND', 'INVALID_TRANSITION'],
  });
  defineRoute(registry, {
    method: 'get',
    path: '/api/v1/phones/{id}/devices',
    summary: 'The devices of a phone',
    description: 'Every device that has sent for this number in the account, newest first, revoked ones included.',
    tags: phoneTags,
    auth: 'account',
    params: phoneIdParams,
    response: { status: 200, description: 'The devices.', schema: z.object({ data: z.array(phoneDeviceSchema) }) },
    errors: ['NOT_FOUND'],
  });
  defineRoute(registry, {
    method: 'delete',
    path: '/api/v1/phones/{id}/devices/{device_id}',
    summary: 'Revoke a device',
    description:
      'Its key or app token stops working at once on this instance (within `KEY_CACHE_TTL_MS` on others); the phone has no device until one is paired again. Revoking twice answers 204.',
    tags: phoneTags,
    auth: 'account',
    params: deviceIdParams,
    response: { status: 204, description: 'Revoked.' },
    errors: ['NOT_FOUND'],
  });
}
