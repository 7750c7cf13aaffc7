import { DomainError } from '@/lib/errors';

/** Password sign-in is retired: its endpoints answer 410 until they are removed next release. */
export function retiredPasswordAuth(): never {
  throw new DomainError(
    'AUTH_METHOD_RETIRED',
    'Password sign-in is retired. Activate a device and use an API key (see /docs).',
  );
}
