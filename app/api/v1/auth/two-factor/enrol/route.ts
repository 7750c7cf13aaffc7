import { route } from '@/lib/http/route';
import { startEnrolment } from '@/lib/members/two-factor';
import { twoFactorEnrolmentSchema } from '@/lib/members/two-factor-schemas';

export const POST = route(
  {
    auth: 'account',
    allowPendingTwoFactor: true,
    doc: {
      operationId: 'startTwoFactorEnrolment',
      summary: 'Start adding an authenticator app',
      description:
        'A new TOTP secret (SHA-1, 6 digits, 30 s) for the signed-in member, as base32, as an `otpauth://` URL and as a QR code. It is pending until confirmed with POST /api/v1/auth/two-factor/confirm; asking again replaces a pending secret. Refused (409 CONFLICT) while two-factor sign-in is on. A dashboard session of a member only.',
      tags: ['Authentication'],
      response: { description: 'The pending secret.', schema: twoFactorEnrolmentSchema },
      errors: ['FORBIDDEN', 'CONFLICT'],
    },
  },
  async ({ db, principal }) => startEnrolment(db, principal),
);
