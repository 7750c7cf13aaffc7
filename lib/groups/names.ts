import { DEFAULT_GROUP_NAME } from '@/lib/accounts/find-or-create';
import { DomainError, validationError } from '@/lib/errors';
import { MAX_GROUP_NAME_LENGTH } from './schemas';

/** A group name as stored, and the key its uniqueness is checked on (trimmed, lower-cased). */
export function groupNameOf(raw: string): { name: string; nameKey: string } {
  const name = raw.trim();
  if (name.length < 1 || name.length > MAX_GROUP_NAME_LENGTH) {
    throw validationError('name', `must be 1 to ${MAX_GROUP_NAME_LENGTH} characters`);
  }
  const nameKey = name.toLowerCase();
  if (nameKey === DEFAULT_GROUP_NAME.toLowerCase()) {
    throw new DomainError('DEFAULT_GROUP_LOCKED', `The name "${DEFAULT_GROUP_NAME}" belongs to the default group.`);
  }
  return { name, nameKey };
}

export function defaultGroupLocked(detail: string): DomainError {
  return new DomainError('DEFAULT_GROUP_LOCKED', detail);
}

export function duplicateName(name: string): DomainError {
  return new DomainError('DUPLICATE_NAME', `A group named "${name}" already exists.`);
}
