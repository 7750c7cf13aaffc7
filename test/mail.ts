import { expect, vi } from 'vitest';
import { POST as requestCode } from '@/app/api/v1/auth/sign-in/request-code/route';
import type { Database } from '@/db';
import { type InboxEntry, listDevInbox } from '@/lib/dev-inbox/store';
import { call } from './http';

/** The email goes out after the answer: waits (a few seconds at most) for one more to `email` in the dev inbox. */
export async function nextMail(db: Database, email: string, request: () => Promise<unknown>): Promise<InboxEntry> {
  const before = (await listDevInbox(db, { to: email, limit: 100 })).length;
  await request();
  return vi.waitFor(
    async () => {
      const mails = await listDevInbox(db, { to: email, limit: 100 });
      if (mails.length === before || !mails[0]) throw new Error(`no new email to ${email}`);
      return mails[0];
    },
    { timeout: 5_000, interval: 10 },
  );
}

/** A sign-in code, requested as the sign-in page requests it and read from the dev inbox. */
export async function emailedCode(db: Database, email: string): Promise<string> {
  const mail = await nextMail(db, email, async () => {
    expect((await call(requestCode, { body: { email } })).status).toBe(202);
  });
  if (!mail.code) throw new Error(`no code was emailed to ${email}`);
  return mail.code;
}
