import { describeApp, registerApp, updateApp } from '@/lib/protocols/smsgate-app/device';
import { REGISTER_APP, UPDATE_APP } from '@/lib/protocols/smsgate-app/docs';
import { mobileRoute } from '@/lib/protocols/smsgate-app/route';
import { patchDeviceBody, registerDeviceBody, registeredDevice } from '@/lib/protocols/smsgate-app/schemas';
import { clientIp } from '@/lib/rate-limit/client-ip';
import { z } from '@/lib/zod';

export const POST = mobileRoute(
  {
    auth: 'none',
    body: registerDeviceBody,
    status: 201,
    doc: {
      operationId: 'registerApp',
      summary: 'The app signs in by code',
      description: REGISTER_APP,
      tags: ['SMSGate app (mobile)'],
      response: { description: 'The device: `token` is its credential, shown once.', schema: registeredDevice },
      errors: ['UNAUTHENTICATED', 'CODE_EXPIRED', 'SIM_MISMATCH', 'RATE_LIMITED'],
    },
  },
  async ({ db, req, body }) =>
    registerApp(db, req.headers.get('authorization'), body ?? {}, { clientIp: clientIp(req) }),
);

export const GET = mobileRoute(
  {
    auth: 'device',
    doc: {
      operationId: 'getAppDevice',
      summary: 'The address the server sees, and the device',
      tags: ['SMSGate app (mobile)'],
      response: {
        description: '`{ externalIp, device }`',
        schema: z.object({ externalIp: z.string(), device: z.object({ id: z.string(), name: z.string() }).loose() }),
      },
    },
  },
  async ({ db, principal, req }) => describeApp(db, principal, { clientIp: clientIp(req) }),
);

export const PATCH = mobileRoute(
  {
    auth: 'device',
    body: patchDeviceBody,
    doc: {
      operationId: 'updateAppDevice',
      summary: 'A new push token or SIM list',
      description: UPDATE_APP,
      tags: ['SMSGate app (mobile)'],
      response: { description: 'Stored.' },
      errors: ['FORBIDDEN'],
    },
  },
  async ({ db, principal, body }) => {
    await updateApp(db, principal, body);
  },
);
