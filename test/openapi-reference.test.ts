import { describe, expect, it } from 'vitest';
import { ROUTES } from '@/app/route-index';
import { openApiDocument } from '@/lib/openapi/document';
import {
  HTTP_METHODS,
  type OpenApiDocument,
  schemaRows,
  tagSections,
  tagSlug,
  typeOf,
  webhookEvents,
} from '@/lib/openapi/reference';

const doc = openApiDocument(ROUTES) as unknown as OpenApiDocument;

describe('the API reference page’s reading of the OpenAPI document', () => {
  it('lists every operation of the document once, under its first tag, with unique addresses', () => {
    const listed = tagSections(doc).flatMap((section) => section.operations.map((o) => `${o.method} ${o.path}`));
    const inDocument = Object.entries(doc.paths).flatMap(([path, item]) =>
      HTTP_METHODS.filter((method) => item[method]).map((method) => `${method} ${path}`),
    );
    expect(listed.sort()).toEqual(inDocument.sort());
    const slugs = tagSections(doc).map((section) => section.slug);
    expect(new Set(slugs).size).toBe(slugs.length);
    expect(slugs).not.toContain('events'); // /docs/events is the webhook events page
    const ids = tagSections(doc).flatMap((section) => section.operations.map((o) => o.id));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('flattens a body into named, typed rows with what is required', () => {
    const send = tagSections(doc)
      .flatMap((section) => section.operations)
      .find((o) => o.id === 'sendMessage')!;
    const rows = send.requestBody!.rows;
    expect(rows.find((r) => r.name === 'content')).toMatchObject({ type: 'string, 1–8192 chars', depth: 0 });
    expect(rows.find((r) => r.name === 'ttl_s')?.type).toBe('integer, 60–604800');
    expect(send.responses.map((r) => r.status)).toEqual(expect.arrayContaining(['201', '402']));
    expect(send.responses.find((r) => r.status === '201')?.schemaName).toBe('Message');
    expect(send.security).toEqual(['AccountKey', 'Session']);
  });

  it('follows $refs and arrays into nested rows, and reads enums, formats and nullability', () => {
    const local: OpenApiDocument = {
      info: { title: 't', version: '1' },
      paths: {},
      components: {
        schemas: {
          Item: {
            type: 'object',
            required: ['kind'],
            properties: { kind: { type: 'string', enum: ['a', 'b'] }, at: { type: 'string', format: 'date-time' } },
          },
        },
      },
    };
    const rows = schemaRows(local, {
      type: 'object',
      properties: { items: { type: 'array', items: { $ref: '#/components/schemas/Item' } } },
    });
    expect(rows).toEqual([
      { name: 'items', type: 'array of Item', required: false, description: undefined, depth: 0 },
      { name: 'items[].kind', type: '"a" | "b"', required: true, description: undefined, depth: 1 },
      { name: 'items[].at', type: 'string (date-time)', required: false, description: undefined, depth: 1 },
    ]);
    expect(typeOf(local, { type: 'integer', nullable: true })).toBe('integer, nullable');
    expect(tagSlug('SMSGate app (mobile)')).toBe('smsgate-app-mobile');
  });

  it('describes every webhook event with its body', () => {
    const events = webhookEvents(doc);
    expect(events.map((e) => e.name)).toContain('message.received');
    for (const event of events) expect(event.rows.length, event.name).toBeGreaterThan(0);
  });
});
