import twilio from 'twilio';
import * as numbersRoute from '@/app/2010-04-01/Accounts/[accountSid]/IncomingPhoneNumbers.json/route';
import * as messageRoute from '@/app/2010-04-01/Accounts/[accountSid]/Messages/[messageSid]/route';
import * as messagesRoute from '@/app/2010-04-01/Accounts/[accountSid]/Messages.json/route';
import * as accountRoute from '@/app/2010-04-01/Accounts/[accountSid]/route';
import type { RouteHandler } from '@/lib/http/route';

export const TWILIO_BASE = 'http://localhost:3000';

/** The Twilio-compatible API's routes by path, as Next matches them. */
export const TWILIO_ROUTES: Array<[RegExp, Record<string, unknown>]> = [
  [/^\/2010-04-01\/Accounts\/(?<accountSid>[^/]+)\/Messages\.json$/, messagesRoute],
  [/^\/2010-04-01\/Accounts\/(?<accountSid>[^/]+)\/Messages\/(?<messageSid>[^/]+)$/, messageRoute],
  [/^\/2010-04-01\/Accounts\/(?<accountSid>[^/]+)\/IncomingPhoneNumbers\.json$/, numbersRoute],
  [/^\/2010-04-01\/Accounts\/(?<accountSid>[^/]+)$/, accountRoute],
];

type TwilioRequest = {
  method: string;
  uri: string;
  username?: string;
  password?: string;
  headers?: Record<string, string>;
  params?: Record<string, unknown>;
  data?: Record<string, unknown>;
};

function formOf(fields: Record<string, unknown> | undefined): URLSearchParams {
  const form = new URLSearchParams();
  for (const [name, value] of Object.entries(fields ?? {})) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) form.append(name, String(one));
  }
  return form;
}

/**
 * The httpClient the official client takes (`request(opts)` → `{ statusCode, body, headers }`),
 * serving its requests with Simgate's route handlers in-process: what it sends (Basic auth, form
 * bodies, query parameters, absolute next-page URLs) reaches the handlers as a real Request.
 */
export function inProcessHttpClient() {
  return {
    async request(opts: TwilioRequest) {
      const url = new URL(opts.uri);
      for (const [name, value] of formOf(opts.params)) url.searchParams.append(name, value);
      const headers = new Headers(opts.headers);
      if (opts.username !== undefined) {
        headers.set('authorization', `Basic ${Buffer.from(`${opts.username}:${opts.password}`).toString('base64')}`);
      }
      const method = opts.method.toUpperCase();
      const body = method === 'GET' || method === 'DELETE' ? undefined : formOf(opts.data).toString();
      for (const [pattern, module] of TWILIO_ROUTES) {
        const match = pattern.exec(url.pathname);
        const handler = match && (module[method] as RouteHandler | undefined);
        if (!handler) continue;
        const params = Object.fromEntries(
          Object.entries(match.groups ?? {}).map(([name, value]) => [name, decodeURIComponent(value)]),
        );
        const res = await handler(new Request(url, { method, headers, body }), { params: Promise.resolve(params) });
        return { statusCode: res.status, body: await res.text(), headers: Object.fromEntries(res.headers) };
      }
      return { statusCode: 404, body: JSON.stringify({ code: 20404, message: 'no route' }), headers: {} };
    },
  };
}

/** The official client, pointed at Simgate by the one line the README gives (`client.api.baseUrl`). */
export function twilioClient(accountSid: string, authToken: string): twilio.Twilio {
  const client = twilio(accountSid, authToken, { httpClient: inProcessHttpClient() as never });
  client.api.baseUrl = TWILIO_BASE;
  return client;
}
