import type { APIRequestContext } from '@playwright/test';
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
  const deadline = Date.now() + 10_000;
  for (;;) {
    const res = await request.get(`/api/dev/inbox?to=${encodeURIComponent(to)}`);
    const inbox = (await res.json()) as { data: Array<{ code: string | null }> };
    const code = inbox.data.find((item) => item.code)?.code;
    if (code) return code;
    if (Date.now() > deadline) throw new Error(`no code for ${to} in the dev inbox`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
