import { route } from '@/lib/http/route';
import { confirmEnrolment } from '@/lib/members/two-factor';
import { recoveryCodesSchema, twoFactorCodeBody } from '@/lib/members/two-factor-schemas';

export const POST = route(
  {
    auth: 'account',
    body: twoFactorCodeBody,
    allowPendingTwoFactor: true,
    doc: {
      operationId: 'confirmTwoFactor',
      summary: 'Turn two-factor sign-in on',
      description:
        'Takes the first code of the pending secret and turns two-factor sign-in on: every later email-code sign-in asks for a code of the app or a recovery code. Answers ten single-use recovery codes, shown this once. A wrong code answers 400 INVALID_CODE and is audited; attempts are limited per member (429).',
      tags: ['Authentication'],
      response: { description: 'The recovery codes.', schema: recoveryCodesSchema },
      errors: ['FORBIDDEN', 'INVALID_CODE', 'CONFLICT', 'RATE_LIMITED'],
    },
  },
  async ({ db, principal, body }) => confirmEnrolment(db, principal, body.code),
);
