import { activateDevice } from '../tools/device-sim/activate';
import { DeviceClient } from '../tools/device-sim/client';

export type BenchPhone = { apiKey: string; deviceKey: string; phone: string; phoneId: string; accountId: string };

/**
 * Activates a phone over HTTP as the device simulator does (the same email joins the same account)
 * and finds its phone id.
 */
export async function activateBenchPhone(baseUrl: string, phone: string, email: string): Promise<BenchPhone> {
  const activation = await activateDevice(new DeviceClient({ baseUrl }), { phone, email, apiKeyName: 'bench' });
  const apiKey = activation.apiKey!;
  const res = await fetch(`${baseUrl}/api/v1/phones?limit=100`, { headers: { 'x-api-key': apiKey } });
  const phones = (await res.json()) as { data: Array<{ id: string; phone: string }> };
  const phoneId = phones.data.find((p) => p.phone === phone)?.id;
  if (!phoneId) throw new Error('the activated phone is not among the account phones');
  return { apiKey, deviceKey: activation.deviceKey, phone, phoneId, accountId: activation.accountId };
}
