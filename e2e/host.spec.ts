import http from 'node:http';
import { expect, test } from '@playwright/test';

/** A request with a Host header of our choosing (a browser on a rebound name sends its own). */
function requestWithHost(
  baseURL: string,
  pathname: string,
  host: string,
  method = 'GET',
): Promise<{ status: number; body: string }> {
  const url = new URL(pathname, baseURL);
  return new Promise((resolve, reject) => {
    const req = http.request(
      { hostname: url.hostname, port: url.port, path: url.pathname, method, headers: { host } },
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
  // Pages and next-auth meet the check in the proxy; the APIs (ours and SMSGate's, an unknown path
  // included) in their route wrapper, for each method a route serves.
  for (const [method, pathname] of [
    ['GET', '/api/dev/inbox'],
    ['POST', '/api/v1/auth/sign-in/request-code'],
    ['POST', '/api/v1/messages'],
    ['GET', '/api/v1/no-such-thing'],
    ['GET', '/api/mobile/v1/message'],
    ['POST', '/3rdparty/v1/messages'],
    ['GET', '/api/auth/session'],
    ['GET', '/sign-in'],
    ['GET', '/dev/inbox'],
  ]) {
    const res = await requestWithHost(baseURL!, pathname!, `attacker.example:${port}`, method);
    expect(res.status, `${method} ${pathname}`).toBe(421);
    expect(JSON.parse(res.body)).toMatchObject({ status: 421, code: 'MISDIRECTED_REQUEST' });
  }
  // A method a route does not serve is answered by Next itself, before any of our code: 405 and
  // nothing else, whatever the Host.
  const wrongMethod = await requestWithHost(baseURL!, '/api/v1/auth/sign-in/request-code', `attacker.example:${port}`);
  expect(wrongMethod).toEqual({ status: 405, body: '' });
  expect((await requestWithHost(baseURL!, '/api/dev/inbox', `127.0.0.1:${port}`)).status).toBe(200);
  expect((await requestWithHost(baseURL!, '/api/dev/inbox', `localhost:${port}`)).status).toBe(200);
  // Load balancers probe health by address.
  expect((await requestWithHost(baseURL!, '/api/health', '10.0.0.7')).status).toBe(200);
});
