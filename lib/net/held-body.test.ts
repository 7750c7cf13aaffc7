import { describe, expect, it } from 'vitest';
import { heldBodies, heldResponse, takeHeldBody } from './held-body';

const bytes = (text: string) => new TextEncoder().encode(text);
const request = (body: string | null, signal = () => new AbortController().signal, method = 'POST') =>
  heldBodies.request(
    'http://localhost/api/v1/messages',
    method,
    [['content-type', 'application/json']],
    body === null ? null : bytes(body),
    signal,
  );

describe('held bodies (lib/net/held-body.ts)', () => {
  it('answer as a Response made with the same text: body, readers, clone, used', async () => {
    const made = () => heldResponse('{"a":1}', { status: 201, headers: { 'content-type': 'application/json' } });
    const answer = made();
    expect(answer).toBeInstanceOf(Response);
    expect(answer.status).toBe(201);
    expect(answer.bodyUsed).toBe(false);
    const copy = answer.clone();
    expect(await answer.json()).toEqual({ a: 1 });
    expect(answer.bodyUsed).toBe(true);
    await expect(answer.text()).rejects.toThrow(TypeError);
    expect(() => answer.clone()).toThrow(TypeError);
    expect(copy.status).toBe(201);
    expect(copy.headers.get('content-type')).toBe('application/json');
    expect(await copy.text()).toBe('{"a":1}');
    expect(await new Response(made().body).text()).toBe('{"a":1}');
    expect(new TextDecoder().decode(await made().arrayBuffer())).toBe('{"a":1}');
    expect(
      await made()
        .blob()
        .then((blob) => blob.text()),
    ).toBe('{"a":1}');
  });

  it('give their body once to takeHeldBody, and are used after it', async () => {
    const answer = heldResponse('{"a":1}', { status: 200 });
    expect(takeHeldBody(answer)).toBe('{"a":1}');
    expect(takeHeldBody(answer)).toBeUndefined();
    expect(answer.bodyUsed).toBe(true);
    await expect(answer.json()).rejects.toThrow(TypeError);
    expect(answer.body?.locked).toBe(true);
    // Read through a stream first: nothing is held any more.
    const streamed = heldResponse('x', { status: 200 });
    expect(streamed.body).not.toBeNull();
    expect(takeHeldBody(streamed)).toBeUndefined();
    expect(await streamed.text()).toBe('x');
    // Not ours, or no body: nothing to take.
    expect(takeHeldBody(new Response('x'))).toBeUndefined();
    expect(takeHeldBody(request(null, undefined, 'GET'))).toBeUndefined();
  });

  it('are Requests with their method, URL, headers and body, read any way', async () => {
    const req = request('{"to":"+14155550100"}');
    expect(req).toBeInstanceOf(Request);
    expect(req.method).toBe('POST');
    expect(req.url).toBe('http://localhost/api/v1/messages');
    expect(req.headers.get('content-type')).toBe('application/json');
    const copy = req.clone();
    expect(await req.json()).toEqual({ to: '+14155550100' });
    expect(req.bodyUsed).toBe(true);
    expect(await copy.text()).toBe('{"to":"+14155550100"}');
    const form = heldBodies.request(
      'http://localhost/2010-04-01/Accounts/AC1/Messages.json',
      'POST',
      [['content-type', 'application/x-www-form-urlencoded']],
      bytes('To=%2B1415&Body=hi'),
      () => new AbortController().signal,
    );
    expect(Object.fromEntries(await form.formData())).toEqual({ To: '+1415', Body: 'hi' });
    const get = request(null, undefined, 'GET');
    expect(get.body).toBeNull();
    expect(get.bodyUsed).toBe(false);
  });

  it("make the host's signal only when it is asked for", () => {
    let made = 0;
    const controller = new AbortController();
    const req = request('{}', () => {
      made++;
      return controller.signal;
    });
    expect(made).toBe(0);
    expect(takeHeldBody(req)).toEqual(bytes('{}'));
    expect(made).toBe(0);
    controller.abort();
    expect(req.signal.aborted).toBe(true);
    expect(made).toBe(1);
  });
});
