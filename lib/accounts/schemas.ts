import { z } from '@/lib/zod';

/** An account's email as typed: trimmed and lower-cased, since an email identifies one account. */
export const emailAddress = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.email('not a valid email address').max(254))
  .openapi({ type: 'string', format: 'email', example: 'ops@example.com' });
