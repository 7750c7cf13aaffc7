import { expect } from '@playwright/test';
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

/** The newest code the dev inbox holds for an address (read as the simulator reads it), polled with a bound. */
export async function codeFor(baseURL: string, to: string, channel: 'sms' | 'email' = 'email'): Promise<string> {
  const client = new DeviceClient({ baseUrl: baseURL });
  let code: string | undefined;
  await expect
    .poll(
      async () => {
        code = await client.latestCode(to, channel);
        return code;
      },
      { timeout: 10_000, message: `a code for ${to} in the dev inbox` },
    )
    .toBeTruthy();
  return code!;
}
