import { describe, expect, it, vi } from 'vitest';
import { POST as requestSignInCode } from '@/app/api/v1/auth/sign-in/request-code/route';
import { POST as registerDevice } from '@/app/api/v1/phones/register-device/route';
import { createTestAccount, devInboxCode, testNumber } from '../fixtures';
import { call } from '../http';
import { captureLogs } from '../logs';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();
const logs = captureLogs();

const inboxCode = (to: string) => devInboxCode(db(), to);

describe('the server log, at debug level', () => {
  it('says a code went to the dev inbox, and to whom, but never the code', async () => {
    const phoneNumber = testNumber();
    expect((await call(registerDevice, { body: { phone_number: phoneNumber } })).status).toBe(201);
    const smsCode = await inboxCode(phoneNumber);
    const { email } = await createTestAccount(db());
    expect((await call(requestSignInCode, { body: { email } })).status).toBe(202);
    const emailCode = await inboxCode(email);

    // The row is visible to the poll above a moment before its sender's log line is written.
    await vi.waitFor(
      () => {
        const inboxLines = logs.entries().filter((entry) => String(entry.msg).startsWith('dev inbox'));
        expect(inboxLines).toEqual([
          expect.objectContaining({ level: 30, channel: 'sms', to: phoneNumber }),
          expect.objectContaining({ level: 30, channel: 'email', to: email }),
        ]);
      },
      { timeout: 5_000, interval: 10 },
    );
    for (const line of logs.lines()) {
      expect(line).not.toContain(smsCode);
      expect(line).not.toContain(emailCode);
    }
  });
});
