'use client';

import { signOut } from 'next-auth/react';
import { ApiProblem, api } from '../api';

/**
 * Signs the browser out so that a copy of its cookie stops working too: the API ends every
 * session of the account (a JWT cannot be ended alone, see lib/auth/session-version.ts), then
 * next-auth clears the cookie. The caller goes to /sign-in.
 */
export async function endSessionsAndSignOut(): Promise<void> {
  try {
    await api('/api/v1/auth/sessions', { method: 'DELETE' });
  } catch (error) {
    // 401: the session had already ended (signed out elsewhere); only the cookie is left to clear.
    if (!(error instanceof ApiProblem && error.status === 401)) throw error;
  }
  await signOut({ redirect: false });
}
