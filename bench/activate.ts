/** Activates a device over HTTP as a phone would (codes from the dev inbox) and returns its credentials. */
export type BenchAccount = { apiKey: string; deviceKey: string; phone: string; phoneId: string };

async function request<T>(baseUrl: string, path: string, init: { body?: unknown; key?: string } = {}): Promise<T> {
  const res = await fetch(`${baseUrl}${path}`, {
    method: init.body === undefined ? 'GET' : 'POST',
    headers: {
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(init.key ? { 'x-api-key': init.key } : {}),
    },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${await res.text()}`);
  return (await res.json()) as T;
}

async function latestCode(baseUrl: string, to: string): Promise<string> {
  const inbox = await request<{ data: Array<{ to: string; code: string | null }> }>(
    baseUrl,
    `/api/dev/inbox?to=${encodeURIComponent(to)}`,
  );
  const code = inbox.data.find((item) => item.to === to && item.code)?.code;
  if (!code) throw new Error(`no code in the dev inbox for ${to}`);
  return code;
}

export async function activateBenchAccount(baseUrl: string): Promise<BenchAccount> {
  const phone = '+14155550100';
  const email = `bench-${Date.now()}@example.test`;
  const { device_id } = await request<{ device_id: string }>(baseUrl, '/api/v1/phones/register-device', {
    body: { phone_number: phone },
  });
  const { device_key } = await request<{ device_key: string }>(baseUrl, '/api/v1/phones/verify-sim', {
    body: { device_id, code: await latestCode(baseUrl, phone) },
  });
  await request(baseUrl, '/api/v1/auth/bind/request-code', { body: { email }, key: device_key });
  await request(baseUrl, '/api/v1/auth/bind/confirm', {
    body: { code: await latestCode(baseUrl, email) },
    key: device_key,
  });
  const { key } = await request<{ key: string }>(baseUrl, '/api/v1/auth/api-keys', {
    body: { name: 'bench' },
    key: device_key,
  });
  const phones = await request<{ data: Array<{ id: string; phone: string }> }>(baseUrl, '/api/v1/phones', { key });
  const phoneId = phones.data.find((p) => p.phone === phone)?.id;
  if (!phoneId) throw new Error('the activated phone is not among the account phones');
  return { apiKey: key, deviceKey: device_key, phone, phoneId };
}
