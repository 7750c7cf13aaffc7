import { listPhoneDevices } from '@/lib/devices/phone-devices';
import { phoneDeviceSchema } from '@/lib/devices/schemas';
import { route } from '@/lib/http/route';
import { phoneIdParams } from '@/lib/phones/schemas';
import { z } from '@/lib/zod';

export const GET = route(
  {
    auth: 'account',
    params: phoneIdParams,
    doc: {
      operationId: 'listPhoneDevices',
      summary: 'The devices of a phone',
      description: 'Every device that has sent for this number in the account, newest first, revoked ones included.',
      tags: ['Phones', 'SMSGate app (mobile)'],
      response: { description: 'The devices.', schema: z.object({ data: z.array(phoneDeviceSchema) }) },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, params }) => listPhoneDevices(db, principal.accountId, params.id),
);
