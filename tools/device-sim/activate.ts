import type { DeviceClient } from './client';

export type Activation = { deviceId: string; deviceKey: string; accountId: string; apiKey?: string };

export type ActivateOptions = {
  phone: string;
  email: string;
  label?: string;
  countryCode?: string;
  /** Name of the API key to create; none is created when absent. */
  apiKeyName?: string;
  /** How long to look for a code in the dev inbox. */
  codeTimeoutMs?: number;
  log?: (line: string) => void;
};

/**
 * The activation a phone goes through (docs/adr/0009-device-activation.md): register the number,
 * verify the SIM with the texted code, bind an email with the emailed code, and create an API key.
 * Codes are read from the dev inbox, as a developer would.
 */
export async function activateDevice(client: DeviceClient, options: ActivateOptions): Promise<Activation> {
  const log = options.log ?? (() => {});
  const registered = await client.registerDevice({
    phoneNumber: options.phone,
    countryCode: options.countryCode,
    label: options.label,
  });
  log(`registered device ${registered.device_id}; waiting for the SMS code`);
  const smsCode = await waitForCode(client, options.phone, 'sms', options.codeTimeoutMs);
  const verified = await client.verifySim(registered.device_id, smsCode);
  client.deviceKey = verified.device_key;
  log('SIM verified; device key received');

  await client.requestBindCode(options.email);
  log(`bind code sent to ${options.email}`);
  const emailCode = await waitForCode(client, options.email, 'email', options.codeTimeoutMs);
  const bound = await client.confirmBind(emailCode);
  log(`activated in account ${bound.account_id}`);

  const activation: Activation = {
    deviceId: registered.device_id,
    deviceKey: verified.device_key,
    accountId: bound.account_id,
  };
  if (options.apiKeyName) activation.apiKey = (await client.createApiKey(options.apiKeyName)).key;
  return activation;
}

async function waitForCode(
  client: DeviceClient,
  to: string,
  channel: 'sms' | 'email',
  timeoutMs = 10_000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const code = await client.latestCode(to, channel);
    if (code) return code;
    if (Date.now() > deadline) throw new Error(`No ${channel} code for ${to} in the dev inbox (is it enabled?).`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
