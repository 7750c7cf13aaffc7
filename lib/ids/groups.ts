import { DomainError } from '@/lib/errors';
import { z } from '@/lib/zod';

/** A phone group id as it arrives in a path, query or body: a positive 32-bit integer. */
export const groupId = z.coerce
  .number()
  .int()
  .positive()
  .max(2147483647)
  .openapi({ type: 'integer', example: 12, description: 'Phone group id.' });

/** A group id in a JSON body: a number, not a numeric string. */
export const groupIdInBody = z
  .number()
  .int()
  .positive()
  .max(2147483647)
  .openapi({ type: 'integer', example: 12, description: 'Phone group id.' });

/** A group id that names no group of the account (another account's included). */
export function groupNotFound(groupId: number): DomainError {
  return new DomainError('GROUP_NOT_FOUND', `Phone group ${groupId} does not exist.`);
}
