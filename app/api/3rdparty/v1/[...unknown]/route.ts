import { DomainError } from '@/lib/errors';
import { integratorRoute } from '@/lib/protocols/smsgate-api/route';

// A path of SMSGate's integrator API that names no operation: 404 as its clients read errors,
// through the wrapper like every answer here (its Host check and security headers). Not an
// operation itself, so the OpenAPI index leaves it out (scripts/route-index.ts).
const unknownPath = integratorRoute({ auth: 'none' }, async ({ url }) => {
  throw new DomainError('NOT_FOUND', `There is no ${url.pathname} in SMSGate's integrator API.`);
});

export { unknownPath as DELETE, unknownPath as GET, unknownPath as PATCH, unknownPath as POST, unknownPath as PUT };
