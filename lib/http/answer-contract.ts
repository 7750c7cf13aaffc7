import type { OperationDoc } from '@/lib/openapi/define';

/**
 * Whether each success answer is checked against the schema its OpenAPI operation declares. On for
 * `npm test` (vitest.config.mts), off in production: an answer that breaks its documented shape then
 * becomes a 500 that names the route and the first issues, so every API call of the test suites is a
 * contract test of the route it calls.
 */
export const checkingAnswers = process.env.SIMGATE_CHECK_ANSWERS === '1';

/** The schema documented for a success status, if any. */
function documentedSchema(doc: OperationDoc | undefined, routeStatus: number | undefined, status: number) {
  if (!doc) return undefined;
  const other = doc.otherResponses?.find((response) => response.status === status);
  if (other) return other.schema;
  const main = doc.response;
  if (!main?.schema || (main.mediaType ?? 'application/json') !== 'application/json') return undefined;
  return status === (routeStatus ?? 200) ? main.schema : undefined;
}

/** Why a JSON success answer does not match its documented schema, or null when it does (or has none). */
export async function contractBreach(
  doc: OperationDoc | undefined,
  routeStatus: number | undefined,
  response: Response,
): Promise<string | null> {
  if (response.status < 200 || response.status > 299) return null;
  if (!response.headers.get('content-type')?.includes('application/json')) return null;
  const schema = documentedSchema(doc, routeStatus, response.status);
  if (!schema) return null;
  const parsed = schema.safeParse(await response.clone().json());
  if (parsed.success) return null;
  const issues = parsed.error.issues
    .slice(0, 5)
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
  return `${doc?.operationId} answered ${response.status} outside its documented schema: ${issues}`;
}
