import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { bindConfirmBody, bindConfirmResponse, bindRequestBody } from '@/lib/devices/schemas';
import { defineRoute, pageOf } from '@/lib/openapi/define';
import { pageQuery } from '@/lib/pagination';
import { CODE_LIFETIME_SECONDS, MAX_WRONG_ATTEMPTS } from './codes';
import {
  apiKeyParams,
  apiKeySchema,
  codeSentSchema,
  createApiKeyBody,
  createdApiKeySchema,
  signInCodeBody,
} from './schemas';

const minutes = CODE_LIFETIME_SECONDS / 60;
const CODE_RULES =
  `Codes have 6 digits and live ${minutes} minutes. A wrong code answers 400 \`INVALID_CODE\`; after ` +
  `${MAX_WRONG_ATTEMPTS} wrong tries the code is burnt and answers 410 \`CODE_EXPIRED\`, as an expired code does: ask for a new one.`;

export function registerAuthRoutes(registry: OpenAPIRegistry): void {
  registerRetiredRoutes(registry);
  registerBindRoutes(registry);
  registerApiKeyRoutes(registry);
  registerSessionRoutes(registry);
  defineRoute(registry, {
    method: 'post',
    path: '/api/v1/auth/sign-in/request-code',
    summary: 'Email a browser sign-in code',
    description:
      'Emails a one-time code for signing in to the dashboard (`/sign-in`). Answers 202 whether or not the ' +
      'email has an account, so it does not reveal who has one. Limited like verification requests, per email and per client IP. ' +
      CODE_RULES,
    tags: ['Authentication'],
    auth: 'none',
    body: signInCodeBody,
    response: { status: 202, description: 'A code is on its way if the email has an account.', schema: codeSentSchema },
    errors: ['RATE_LIMITED', 'SERVICE_UNAVAILABLE'],
  });
}

function registerRetiredRoutes(registry: OpenAPIRegistry): void {
  for (const which of ['register', 'login'] as const) {
    defineRoute(registry, {
      method: 'post',
      path: `/api/v1/auth/${which}`,
      summary: `Retired: password ${which === 'register' ? 'registration' : 'sign-in'}`,
      description:
        'Password sign-in is retired and this endpoint is removed in the next release. Activate a device instead.',
      tags: ['Authentication'],
      auth: 'none',
      response: { status: 410, description: 'Always `AUTH_METHOD_RETIRED`.' },
      errors: ['AUTH_METHOD_RETIRED'],
    });
  }
}

function registerBindRoutes(registry: OpenAPIRegistry): void {
  const tags = ['Device activation'];
  defineRoute(registry, {
    method: 'post',
    path: '/api/v1/auth/bind/request-code',
    summary: 'Step 3a: email a code to bind an email to the device',
    description:
      'Takes the device key of a verified device (or of an activated one, for its own account’s email). ' +
      `Limited per device like verification requests. ${CODE_RULES}`,
    tags,
    auth: 'device',
    body: bindRequestBody,
    response: { status: 202, description: 'The code is on its way.', schema: codeSentSchema },
    errors: ['INVALID_TRANSITION', 'RATE_LIMITED', 'SERVICE_UNAVAILABLE'],
  });
  defineRoute(registry, {
    method: 'post',
    path: '/api/v1/auth/bind/confirm',
    summary: 'Step 3b: confirm the emailed code and activate the device',
    description: [
      'Activates the device in the account of the bound email: an email no account has yet creates the account',
      '(default group `Default`, starter credits, free plan); an existing account is joined. The device’s number',
      'becomes a phone of the account in the default group (if it is not one already, in which case that phone',
      'switches to this device and the account’s previous device on that number is revoked). Adding the phone counts',
      'toward the plan: over the limit, 403 `PLAN_LIMIT_REACHED` and nothing is activated.',
      '',
      CODE_RULES,
    ].join('\n'),
    tags,
    auth: 'device',
    body: bindConfirmBody,
    response: { status: 200, description: 'The device is activated.', schema: bindConfirmResponse },
    errors: ['INVALID_CODE', 'CODE_EXPIRED', 'INVALID_TRANSITION', 'PLAN_LIMIT_REACHED'],
  });
}

function registerApiKeyRoutes(registry: OpenAPIRegistry): void {
  const tags = ['API keys'];
  defineRoute(registry, {
    method: 'post',
    path: '/api/v1/auth/api-keys',
    summary: 'Step 4: create an account-wide API key',
    description:
      'Takes the device key of an activated device, an account key, or the dashboard session. The key (`sk_…`) ' +
      'is in this answer only; the service keeps its hash. A device key of a device without a bound email answers ' +
      '403 `DEVICE_NOT_ACTIVATED`.',
    tags,
    auth: 'any',
    body: createApiKeyBody,
    response: { status: 201, description: 'The new key, shown once.', schema: createdApiKeySchema },
    errors: ['DEVICE_NOT_ACTIVATED', 'FORBIDDEN'],
  });
  defineRoute(registry, {
    method: 'get',
    path: '/api/v1/auth/api-keys',
    summary: 'List API keys',
    description: 'Newest first, revoked keys included (with `revoked_at`). Never the key or its hash.',
    tags,
    auth: 'account',
    query: pageQuery,
    response: { status: 200, description: 'A page of keys.', schema: pageOf(apiKeySchema) },
  });
  defineRoute(registry, {
    method: 'delete',
    path: '/api/v1/auth/api-keys/{id}',
    summary: 'Revoke an API key',
    description:
      'Takes effect at once on this instance and within `KEY_CACHE_TTL_MS` (default 5 s) on others; a dashboard ' +
      'session opened with the key ends too. Revoking a revoked key answers 204 again.',
    tags,
    auth: 'account',
    params: apiKeyParams,
    response: { status: 204, description: 'Revoked.' },
    errors: ['NOT_FOUND', 'FORBIDDEN'],
  });
}

function registerSessionRoutes(registry: OpenAPIRegistry): void {
  defineRoute(registry, {
    method: 'delete',
    path: '/api/v1/auth/sessions',
    summary: 'Sign out everywhere',
    description:
      'Ends every dashboard session of the account at once, on every browser, the calling one included: a ' +
      'session cookie issued before this call answers 401 `UNAUTHENTICATED` from then on, copies of it too. ' +
      'The dashboard’s sign-out calls it, so signing out in one browser signs out the others. API keys are not ' +
      'affected. Takes an account key or the session.',
    tags: ['Authentication'],
    auth: 'account',
    response: { status: 204, description: 'Every session of the account has ended.' },
    errors: ['FORBIDDEN'],
  });
}
