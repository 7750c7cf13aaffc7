import { route } from '@/lib/http/route';
import { rotateCallbackSecret } from '@/lib/webhooks/callbacks';
import { secretSchema } from '@/lib/webhooks/schemas';

export const POST = route(
  {
    auth: 'account',
    status: 201,
    doc: {
      operationId: 'rotateCallbackSecret',
      summary: 'Create or rotate the status-callback secret',
      description:
        'The `whsec_…` secret that signs every per-message status callback (`status_callback_url` on a send), shown once in this answer. A send with a `status_callback_url` needs it (400 naming the field until it exists). Rotating keeps the previous secret signing alongside for 24 h, as webhook rotations do.',
      tags: ['Webhooks'],
      response: { description: 'The new secret, shown once.', schema: secretSchema },
    },
  },
  async ({ db, principal }) => rotateCallbackSecret(db, principal.accountId),
);
