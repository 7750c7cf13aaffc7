import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { OpenAPIRegistry, OpenApiGeneratorV31 } from '@asteasolutions/zod-to-openapi';
import { describe, expect, it } from 'vitest';
import { GET } from '@/app/api/v1/openapi.json/route';
import { ROUTES } from '@/app/route-index';
import { HTTP_METHODS, operationsOf } from '@/lib/openapi/document';
import type { z } from '@/lib/zod';
import { INDEX_FILE, renderRouteIndex, urlPathOf, wrappedRouteFiles } from '@/scripts/route-index';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

withTestDatabase();

type Json = Record<string, any>;

/** Every (method, path) a route file made by the route wrappers exports, read from the filesystem. */
function routesOnDisk(): string[] {
  return wrappedRouteFiles().flatMap((file) => {
    const source = fs.readFileSync(file, 'utf8');
    return HTTP_METHODS.filter((method) =>
      new RegExp(`export const ${method}\\b|export async function ${method}\\b`).test(source),
    ).map((method) => `${method.toLowerCase()} ${urlPathOf(file)}`);
  });
}

async function documentOf(): Promise<Json> {
  const res = await call(GET);
  expect(res.status).toBe(200);
  return res.body as Json;
}

function operationsIn(doc: Json): Array<{ key: string; op: Json }> {
  return Object.entries(doc.paths as Json).flatMap(([urlPath, methods]) =>
    Object.entries(methods as Json).map(([method, op]) => ({ key: `${method} ${urlPath}`, op: op as Json })),
  );
}

/** The value with every `$ref` to a component replaced by the component, so two documents compare by content. */
function resolved(value: unknown, doc: Json): unknown {
  if (Array.isArray(value)) return value.map((item) => resolved(item, doc));
  if (!value || typeof value !== 'object') return value;
  const ref = (value as Json).$ref;
  if (typeof ref === 'string' && ref.startsWith('#/components/schemas/')) {
    return resolved(doc.components.schemas[ref.slice('#/components/schemas/'.length)], doc);
  }
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, resolved(item, doc)]));
}

/** What zod-to-openapi makes of a route's own request schemas, with nothing of lib/openapi in between. */
function requestFromSchemas(
  method: string,
  urlPath: string,
  schemas: { body?: z.ZodType; query?: z.ZodType; params?: z.ZodType; components?: Record<string, z.ZodType> },
) {
  const registry = new OpenAPIRegistry();
  for (const [name, schema] of Object.entries(schemas.components ?? {})) registry.register(name, schema);
  registry.registerPath({
    method: method as 'get',
    path: urlPath,
    request: {
      ...(schemas.params ? { params: schemas.params as z.ZodObject } : {}),
      ...(schemas.query ? { query: schemas.query as z.ZodObject } : {}),
      ...(schemas.body ? { body: { content: { 'application/json': { schema: schemas.body } } } } : {}),
    },
    responses: { 200: { description: 'ok' } },
  });
  const doc = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: 'one route', version: '0' },
  }) as Json;
  const op = doc.paths[urlPath][method];
  return {
    parameters: resolved(op.parameters ?? [], doc),
    body: resolved(op.requestBody?.content['application/json'].schema, doc),
  };
}

describe('GET /api/v1/openapi.json', () => {
  it('is an OpenAPI 3.1 document', async () => {
    const doc = await documentOf();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.components.schemas.Problem).toBeDefined();
  });

  it('has exactly the operations the route files export, each with its method and path', async () => {
    const doc = await documentOf();
    const onDisk = routesOnDisk();
    expect(onDisk.length).toBeGreaterThan(30);
    expect(
      operationsIn(doc)
        .map((o) => o.key)
        .sort(),
    ).toEqual([...onDisk].sort());
  });

  it('documents each operation with the schemas its route validates with', async () => {
    const doc = await documentOf();
    for (const { method, path: urlPath, spec } of operationsOf(ROUTES)) {
      const op = doc.paths[urlPath][method] as Json;
      const expected = requestFromSchemas(method, urlPath, {
        body: spec.body ?? spec.doc.rawBody,
        query: spec.query ?? spec.doc.rawQuery,
        params: spec.params,
        components: spec.doc.components,
      });
      const where = `${method.toUpperCase()} ${urlPath}`;
      expect(resolved(op.parameters ?? [], doc), where).toEqual(expected.parameters);
      const bodyType =
        spec.bodyFormat === 'form'
          ? 'application/x-www-form-urlencoded'
          : (spec.doc.rawBodyMediaType ?? 'application/json');
      expect(resolved(op.requestBody?.content[bodyType].schema, doc), where).toEqual(expected.body);
      expect(op.operationId, where).toBe(spec.doc.operationId);
    }
  });

  it('gives every operation a camelCase, verb-first operationId of its own', async () => {
    const ids = operationsIn(await documentOf()).map(({ op }) => op.operationId as string);
    expect(ids.filter((id) => !/^[a-z]+[A-Za-z0-9]*$/.test(id))).toEqual([]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  // The two rules redocly.yaml turns off, checked here with exactly the exceptions it names.
  it('documents a 2xx for every operation but the retired ones, and a 4xx wherever a credential or input can fail', async () => {
    const doc = await documentOf();
    const without2xx = operationsIn(doc).filter(({ op }) => !Object.keys(op.responses).some((s) => s.startsWith('2')));
    expect(without2xx.map((o) => o.key).sort()).toEqual(['post /api/v1/auth/login', 'post /api/v1/auth/register']);
    expect(without2xx.every(({ op }) => op.deprecated === true)).toBe(true);
    const without4xx = operationsIn(doc).filter(({ op }) => !Object.keys(op.responses).some((s) => s.startsWith('4')));
    expect(without4xx.map((o) => o.key).sort()).toEqual([
      'get /.well-known/api-catalog',
      'get /api/3rdparty/v1/health',
      'get /api/3rdparty/v1/health/live',
      'get /api/3rdparty/v1/health/ready',
      'get /api/3rdparty/v1/health/startup',
      'get /api/health',
      'get /api/health/live',
      'get /api/health/ready',
      'get /api/health/startup',
      'get /api/v1/openapi.json',
      'get /api/v1/webhooks/events',
    ]);
  });

  it('gives every operation a problem answer for its errors (plain JSON on the SMSGate and Twilio surfaces)', async () => {
    const doc = await documentOf();
    for (const [urlPath, operations] of Object.entries(doc.paths as Json)) {
      const plain = ['/api/mobile/', '/api/3rdparty/', '/2010-04-01/'].some((prefix) => urlPath.startsWith(prefix));
      const mediaType = plain ? 'application/json' : 'application/problem+json';
      for (const op of Object.values(operations as Json)) {
        expect(op.responses['500']?.content?.[mediaType]).toBeDefined();
      }
    }
  });

  it('answers a transfer short of credits with 400, a send with 402', async () => {
    const doc = await documentOf();
    expect(doc.paths['/api/v1/credits/transfer'].post.responses['400'].description).toContain('INSUFFICIENT_CREDITS');
    expect(doc.paths['/api/v1/messages'].post.responses['402'].description).toContain('INSUFFICIENT_CREDITS');
  });
});

describe('the route index', () => {
  it('lists every route file made by the route wrappers (else run `npm run openapi:index`)', () => {
    expect(fs.readFileSync(INDEX_FILE, 'utf8')).toBe(renderRouteIndex());
  });
});

describe('redocly lint', () => {
  it('passes the recommended rules with no error and no warning', { timeout: 60_000 }, async () => {
    const doc = await documentOf();
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-openapi-'));
    const file = path.join(dir, 'openapi.json');
    fs.writeFileSync(file, JSON.stringify(doc));
    try {
      const cli = path.join(process.cwd(), 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
      const result = await promisify(execFile)(
        process.execPath,
        [cli, 'lint', file, '--config', path.join(process.cwd(), 'redocly.yaml'), '--max-problems', '50'],
        { env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } },
      ).catch((error: { stdout: string; stderr: string }) => error);
      const output = `${result.stdout}\n${result.stderr}`;
      expect(output, output).toMatch(/Your API description is valid/);
      expect(output, output).not.toMatch(/You have \d+ warnings?/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
