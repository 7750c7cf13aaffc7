import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { CODE_LIFETIME_SECONDS, MAX_WRONG_ATTEMPTS } from '@/lib/auth/codes';
import { defineRoute } from '@/lib/openapi/define';
import { registerDeviceBody, registerDeviceResponse, verifySimBody, verifySimResponse } from './schemas';

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
}
