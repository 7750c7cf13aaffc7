import http from 'node:http';
import { expect, test } from '@playwright/test';

/** A request with a Host header of our choosing (a browser on a rebound name sends its own). */
function requestWithHost(baseURL: string, pathname: string, host: string): Promise<{ status: number; body: string }> {
  const url = new URL(pathname, baseURL);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { hostname: url.hostname, port: url.port, path: url.pathname, headers: { host } },
      (res) => {
        let body = '';
        res.on('data', (chunk) => {
          body += chunk;
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

test('npm start’s server refuses a foreign Host (DNS rebinding) before any route or page runs', async ({ baseURL }) => {
  const port = new URL(baseURL!).port;
  for (const pathname of ['/api/dev/inbox', '/api/v1/auth/sign-in/request-code', '/sign-in', '/dev/inbox']) {
    const res = await requestWithHost(baseURL!, pathname, `attacker.example:${port}`);
    expect(res.status, pathname).toBe(421);
    expect(JSON.parse(res.body)).toMatchObject({ status: 421, code: 'MISDIRECTED_REQUEST' });
  }
  expect((await requestWithHost(baseURL!, '/api/dev/inbox', `127.0.0.1:${port}`)).status).toBe(200);
  expect((await requestWithHost(baseURL!, '/api/dev/inbox', `localhost:${port}`)).status).toBe(200);
  // Load balancers probe health by address.
  expect((await requestWithHost(baseURL!, '/api/health', '10.0.0.7')).status).toBe(200);
});
