import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GET } from '@/app/api/v1/openapi.json/route';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

withTestDatabase();

const API_ROOTS = [
  { dir: path.join(process.cwd(), 'app', 'api', 'v1'), prefix: '/api/v1' },
  { dir: path.join(process.cwd(), 'app', 'api', 'mobile', 'v1'), prefix: '/api/mobile/v1' },
];
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Every (method, path) a route file under a documented root exports, in OpenAPI path syntax. */
function routeFiles(root: { dir: string; prefix: string }, dir = root.dir): Array<{ method: string; path: string }> {
  const found: Array<{ method: string; path: string }> = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...routeFiles(root, full));
    else if (entry.name === 'route.ts') {
      const source = fs.readFileSync(full, 'utf8');
      const urlPath = `${root.prefix}/${path.relative(root.dir, path.dirname(full))}`
        .replace(/\\/g, '/')
        .replace(/\/$/, '')
        .replace(/\[([^\]]+)\]/g, '{$1}');
      for (const method of METHODS) {
        if (new RegExp(`export const ${method}\\b|export async function ${method}\\b`).test(source)) {
          found.push({ method: method.toLowerCase(), path: urlPath });
        }
      }
    }
  }
  return found;
}

describe('GET /api/v1/openapi.json', () => {
  it('is an OpenAPI 3.1 document', async () => {
    const res = await call(GET);
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.components.schemas.Problem).toBeDefined();
  });

  it('documents every route under app/api/v1 and app/api/mobile/v1', async () => {
    const doc = (await call(GET)).body as { paths: Record<string, Record<string, unknown>> };
    const routes = API_ROOTS.flatMap((root) => routeFiles(root));
    expect(routes.length).toBeGreaterThan(0);
    const missing = routes
      .filter((r) => !doc.paths[r.path]?.[r.method])
      .map((r) => `${r.method.toUpperCase()} ${r.path}`);
    expect(missing).toEqual([]);
  });

  it('gives every operation a problem answer for its errors (plain JSON on the SMSGate app’s surface)', async () => {
    const doc = (await call(GET)).body as { paths: Record<string, Record<string, { responses: Record<string, any> }>> };
    for (const [urlPath, operations] of Object.entries(doc.paths)) {
      const mediaType = urlPath.startsWith('/api/mobile/') ? 'application/json' : 'application/problem+json';
      for (const op of Object.values(operations)) {
        expect(op.responses['500']?.content?.[mediaType]).toBeDefined();
      }
    }
  });
});
