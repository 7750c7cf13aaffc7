import { DomainError } from '@/lib/errors';
import { mobileRoute } from '@/lib/protocols/smsgate-app/route';

// A path of the app's surface that names no operation: 404 as the app reads errors, through the
// wrapper like every answer here (its Host check and security headers). Not an operation itself,
// so the OpenAPI index leaves it out (scripts/route-index.ts).
const unknownPath = mobileRoute({ auth: 'none' }, async ({ url }) => {
  throw new DomainError('NOT_FOUND', `There is no ${url.pathname} in the SMSGate app's API.`);
});

export { unknownPath as DELETE, unknownPath as GET, unknownPath as PATCH, unknownPath as POST, unknownPath as PUT };
