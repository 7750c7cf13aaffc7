import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Database, Executor } from '@/db';
import { recordAudit } from '@/lib/audit/record';
import type { AccountPrincipal } from '@/lib/auth/principal';
import { decryptSecret, encryptSecret } from '@/lib/crypto/secret-box';
import { accountOfSid, sealedAuthTokenOf, storeAuthToken } from '@/lib/integrations/twilio-credentials';
import { withTransaction } from '@/lib/transactions';
import { twilioError } from './errors';
import { ACCOUNT_SID, accountSidOf } from './ids';

/** The secret-box purpose of Auth Tokens: a sealed token reads back only as one. */
const PURPOSE = 'twilio-auth-token';

/** Opens a sealed Auth Token (the backup's restore checks each with it). */
export function unsealAuthToken(sealed: string): string {
  return decryptSecret(sealed, PURPOSE);
}

export type TwilioCredentials = { account_sid: string; auth_token: string };

/**
 * A new Auth Token for the account, shown once (Twilio's are 32 hex digits): requests authenticate
 * with it and callbacks are signed with it, so it is sealed with APP_SECRET, not hashed. The one it
 * replaces stops working at once. Audited as created or rotated.
 */
export async function createAuthToken(executor: Executor, accountId: string): Promise<TwilioCredentials> {
  const accountSid = accountSidOf(accountId);
  const authToken = randomBytes(16).toString('hex');
  await withTransaction(executor, async (tx) => {
    const before = await sealedAuthTokenOf(tx, accountId, { lock: true });
    await storeAuthToken(tx, accountId, { accountSid, sealed: encryptSecret(authToken, PURPOSE) });
    await recordAudit(tx, {
      accountId,
      action: before ? 'twilio_auth_token.rotated' : 'twilio_auth_token.created',
      target: accountSid,
    });
  });
  return { account_sid: accountSid, auth_token: authToken };
}

/** What GET /api/v1/twilio shows: the SID, and whether an Auth Token exists (never the token). */
export async function twilioSettings(
  executor: Executor,
  accountId: string,
): Promise<{ account_sid: string; has_auth_token: boolean }> {
  const sealed = await sealedAuthTokenOf(executor, accountId);
  return { account_sid: accountSidOf(accountId), has_auth_token: Boolean(sealed) };
}

/** The account's Auth Token, to sign its Twilio-format callbacks; undefined when it has none. */
export async function authTokenOf(executor: Executor, accountId: string): Promise<string | undefined> {
  const sealed = await sealedAuthTokenOf(executor, accountId);
  return sealed ? unsealAuthToken(sealed) : undefined;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** HTTP Basic `AccountSid:AuthToken`, as Twilio's clients send it; undefined when absent or malformed. */
export function basicCredentials(req: Request): { username: string; password: string } | undefined {
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(req.headers.get('authorization') ?? '')?.[1];
  if (!basic) return undefined;
  const decoded = Buffer.from(basic, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * The account whose Account SID and Auth Token the request carries, or 401 with Twilio's code 20003.
 * An unreadable sealed token (APP_SECRET changed) is a wrong token: the owner creates a new one.
 */
export async function authenticateTwilio(db: Database, req: Request): Promise<AccountPrincipal> {
  const refuse = () =>
    twilioError('UNAUTHENTICATED', 20003, 'Authenticate: send your Account SID and Auth Token as HTTP Basic.', {
      'WWW-Authenticate': 'Basic realm="Twilio API"',
    });
  const credentials = basicCredentials(req);
  if (!credentials || !ACCOUNT_SID.test(credentials.username)) throw refuse();
  const row = await accountOfSid(db, credentials.username);
  if (!row?.sealed) throw refuse();
  let token: string;
  try {
    token = unsealAuthToken(row.sealed);
  } catch {
    throw refuse();
  }
  if (!sameText(token, credentials.password)) throw refuse();
  return { kind: 'account', accountId: row.accountId, keyId: null, via: 'api_key' };
}
