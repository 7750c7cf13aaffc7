import { ROUTES } from '@/app/route-index';
import { openApiDocument } from '@/lib/openapi/document';
import type { OpenApiDocument } from '@/lib/openapi/reference';

let cached: OpenApiDocument | undefined;

/** The same document /api/v1/openapi.json serves, made once per process. */
export function referenceDocument(): OpenApiDocument {
  cached ??= openApiDocument(ROUTES) as unknown as OpenApiDocument;
  return cached;
}
