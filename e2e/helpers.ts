import { type APIRequestContext, expect } from '@playwright/test';
import { activateDevice } from '../lib/device-sim/activate';
import { DeviceClient } from '../lib/device-sim/client';

let counter = 0;

/** A number no other spec of this run uses (+1 415 555 2xxx). */
export function uniqueNumber(): string {
  counter += 1;
  return `+14155552${String((Date.now() + counter) % 1000).padStart(3, '0')}`;
}

/** Activates a phone as the device simulator does and returns its credentials. */
export async function activatePhone(baseURL: string, email: string, phone = uniqueNumber()) {
  const activation = await activateDevice(new DeviceClient({ baseUrl: baseURL }), { phone, email, apiKeyName: 'e2e' });
  return { ...activation, apiKey: activation.apiKey!, phone };
}

/** The newest code the dev inbox holds for an address, polled with a bound. */
export async function codeFor(request: APIRequestContext, to: string): Promise<string> {
  let code: string | null | undefined;
  await expect
    .poll(
      async () => {
        const res = await request.get(`/api/dev/inbox?to=${encodeURIComponent(to)}`);
        const inbox = (await res.json()) as { data: Array<{ code: string | null }> };
        code = inbox.data.find((item) => item.code)?.code;
        return code;
      },
      { timeout: 10_000, message: `a code for ${to} in the dev inbox` },
    )
    .toBeTruthy();
  return code!;
}
