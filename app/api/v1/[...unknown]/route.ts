import { DomainError } from '@/lib/errors';
import { route } from '@/lib/http/route';

// Any path under /api/v1 that names no operation: 404 problem+json, through the wrapper like every
// API answer (its Host check and security headers), not Next's HTML page. Not an operation itself,
// so the OpenAPI index leaves it out (scripts/route-index.ts).
const unknownPath = route({ auth: 'none' }, async ({ url }) => {
  throw new DomainError('NOT_FOUND', `There is no ${url.pathname} in this API; see /api/v1/openapi.json.`);
});

export { unknownPath as DELETE, unknownPath as GET, unknownPath as PATCH, unknownPath as POST, unknownPath as PUT };
