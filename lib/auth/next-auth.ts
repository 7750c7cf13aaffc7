import type { NextAuthOptions } from 'next-auth';
import CredentialsProvider from 'next-auth/providers/credentials';
import { getDb } from '@/db';
import { appSecret, config } from '@/lib/config';
import { memberSessionVersion } from '@/lib/members/lookup';
import { clientIp } from '@/lib/rate-limit/client-ip';
import { logAuthEvent } from './auth-log';
import { currentSessionVersion } from './session-version';
import { authorizeApiKey, authorizeEmailCode, type SignedInUser, type SignInContext } from './sign-in';

export const SESSION_MAX_AGE_SECONDS = 7 * 24 * 60 * 60;

/**
 * Browser sign-in without passwords: an emailed one-time code, or a pasted account API key.
 * Sessions are JWTs in an encrypted cookie carrying the account id, the account's session version
 * at sign-in (signing out bumps it, which ends the session everywhere: lib/auth/session-version.ts)
 * and the key id when a key opened the session; the /api/v1 wrapper reads the same cookie
 * (lib/auth/session.ts).
 * Built on demand, since the secret may only be read at run time.
 */
export function authOptions(): NextAuthOptions {
  const appUrl = config.appUrl;
  return {
    secret: appSecret(),
    session: { strategy: 'jwt', maxAge: SESSION_MAX_AGE_SECONDS },
    jwt: { maxAge: SESSION_MAX_AGE_SECONDS },
    ...(appUrl ? { useSecureCookies: appUrl.startsWith('https://') } : {}),
    pages: { signIn: '/sign-in', error: '/sign-in' },
    providers: [
      CredentialsProvider({
        id: 'email-code',
        name: 'Email code',
        credentials: {
          email: { label: 'Email', type: 'email' },
          code: { label: 'Code', type: 'text' },
          // The token of an invitation link: the email joins that account as it signs in (lib/auth/sign-in.ts).
          invitation: { label: 'Invitation', type: 'text' },
          // A member with two-factor sign-in on: a code of their authenticator, or a recovery code.
          totp: { label: 'Authenticator code', type: 'text' },
        },
        authorize: async (credentials, req) => authorizeEmailCode(await getDb(), credentials ?? {}, signInContext(req)),
      }),
      CredentialsProvider({
        id: 'api-key',
        name: 'API key',
        credentials: { key: { label: 'API key', type: 'password' } },
        authorize: async (credentials, req) => authorizeApiKey(await getDb(), credentials ?? {}, signInContext(req)),
      }),
    ],
    callbacks: {
      async jwt({ token, user }) {
        if (user) {
          const signedIn = user as SignedInUser;
          token.accountId = signedIn.id;
          token.keyId = signedIn.keyId;
          token.memberId = signedIn.memberId;
          const db = await getDb();
          // The versions now: this session lives until the account's or the member's next sign-out.
          token.sessionVersion = await currentSessionVersion(db, signedIn.id);
          token.memberVersion = signedIn.memberId ? await memberSessionVersion(db, signedIn.memberId) : null;
        }
        return token;
      },
      session({ session, token }) {
        return { ...session, accountId: token.accountId };
      },
    },
    logger: {
      error: (code, metadata) => logAuthEvent('error', code, metadata),
      warn: (code) => logAuthEvent('warn', code),
      debug: () => {},
    },
  };
}

/** Where a sign-in comes from: next-auth hands authorize() the request's headers as a plain object. */
function signInContext(req: { headers?: Record<string, unknown> } | undefined): SignInContext {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req?.headers ?? {})) {
    if (typeof value === 'string') headers.set(name, value);
  }
  const ip = clientIp(new Request('http://sign-in.invalid/', { headers }));
  return { ip: ip === 'unknown' ? null : ip };
}
