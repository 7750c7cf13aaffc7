import { randomBytes } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { accounts } from '@/db/schema';
import { decryptSecret, encryptSecret } from '@/lib/crypto/secret-box';

/**
 * The key that signs an account's SMSGate-format webhooks, kept sealed on its accounts row: its
 * integrator API shows and sets it, its webhook bodies are signed with it, the backup checks it opens.
 */

const PURPOSE = 'smsgate-signing-key';

/** Seals a signing key for the accounts row. */
export function sealSigningKey(key: string): string {
  return encryptSecret(key, PURPOSE);
}

/** A sealed signing key, opened (throws under another APP_SECRET). */
export function unsealSigningKey(sealed: string): string {
  return decryptSecret(sealed, PURPOSE);
}

/**
 * The key that signs the account's SMSGate-format webhooks (`webhooks.signing_key` in its settings),
 * made the first time it is needed; two first uses at once keep the first one written.
 */
export async function signingKeyOf(executor: Executor, accountId: string): Promise<string> {
  const [account] = await executor
    .select({ sealed: accounts.smsgateSigningKeyEncrypted })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  if (account?.sealed) return unsealSigningKey(account.sealed);
  const fresh = sealSigningKey(randomBytes(24).toString('base64url'));
  const [stored] = await executor
    .update(accounts)
    .set({ smsgateSigningKeyEncrypted: sql`coalesce(${accounts.smsgateSigningKeyEncrypted}, ${fresh})` })
    .where(eq(accounts.id, accountId))
    .returning({ sealed: accounts.smsgateSigningKeyEncrypted });
  return unsealSigningKey(stored?.sealed ?? fresh);
}
