/**
 * What the API reference page (/docs) reads from the OpenAPI document: operations grouped by tag,
 * and schemas flattened into rows (`parent.child` names) with a readable type. Pure functions over
 * the document this API generates, so the page renders on the server with no client script.
 */

type Json = Record<string, unknown>;
export type OpenApiDocument = Json & {
  info: { title: string; version: string; description?: string };
  tags?: Array<{ name: string; description?: string }>;
  paths: Record<string, Record<string, Json>>;
  webhooks?: Record<string, Record<string, Json>>;
  components?: { schemas?: Record<string, Json>; securitySchemes?: Record<string, Json> };
};

export const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export type Operation = {
  id: string;
  method: HttpMethod;
  path: string;
  summary: string;
  description?: string;
  security: string[];
  parameters: Array<{ name: string; in: string; required: boolean; type: string; description?: string }>;
  requestBody?: { contentType: string; rows: SchemaRow[]; example?: unknown };
  responses: Array<{
    status: string;
    description: string;
    contentType?: string;
    schemaName?: string;
    rows: SchemaRow[];
  }>;
  deprecated: boolean;
};

export type SchemaRow = { name: string; type: string; required: boolean; description?: string; depth: number };

/** A tag's address under /docs. */
export function tagSlug(tag: string): string {
  return tag
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

function refName(ref: string): string {
  return ref.split('/').at(-1) ?? ref;
}

function resolve(doc: OpenApiDocument, schema: Json | undefined): Json {
  if (!schema) return {};
  const ref = schema.$ref;
  if (typeof ref === 'string') return resolve(doc, doc.components?.schemas?.[refName(ref)]);
  return schema;
}

/** A type as a reader wants it: `string (date-time)`, `"a" | "b"`, `array of Message`, `integer, 1–60`. */
export function typeOf(doc: OpenApiDocument, schema: Json | undefined): string {
  if (!schema) return 'any';
  if (typeof schema.$ref === 'string') return refName(schema.$ref);
  const variants = (schema.oneOf ?? schema.anyOf) as Json[] | undefined;
  if (Array.isArray(variants)) return variants.map((v) => typeOf(doc, v)).join(' | ');
  if (Array.isArray(schema.allOf)) return (schema.allOf as Json[]).map((v) => typeOf(doc, v)).join(' & ');
  if (Array.isArray(schema.enum)) return (schema.enum as unknown[]).map((v) => JSON.stringify(v)).join(' | ');
  if ('const' in schema) return JSON.stringify(schema.const);
  let type = Array.isArray(schema.type) ? (schema.type as string[]).join(' | ') : String(schema.type ?? 'object');
  if (schema.type === 'array') type = `array of ${typeOf(doc, schema.items as Json | undefined)}`;
  if (typeof schema.format === 'string') type += ` (${schema.format})`;
  const bounds: string[] = [];
  const min = schema.minimum ?? schema.exclusiveMinimum ?? schema.minLength ?? schema.minItems;
  const max = schema.maximum ?? schema.exclusiveMaximum ?? schema.maxLength ?? schema.maxItems;
  if (min !== undefined || max !== undefined) {
    const unit = schema.type === 'string' ? ' chars' : schema.type === 'array' ? ' items' : '';
    const low = schema.exclusiveMinimum !== undefined && schema.minimum === undefined ? `>${min}` : min;
    bounds.push(`${low ?? ''}–${max ?? ''}${unit}`);
  }
  if (schema.nullable === true) bounds.push('nullable');
  return bounds.length > 0 ? `${type}, ${bounds.join(', ')}` : type;
}

const MAX_DEPTH = 3;

/**
 * An object schema as rows, nested objects (also inside arrays and $refs) under `parent.child`
 * names up to three levels; union members' properties are merged, each marked optional.
 */
export function schemaRows(doc: OpenApiDocument, schema: Json | undefined, prefix = '', depth = 0): SchemaRow[] {
  const resolved = resolve(doc, schema);
  if (depth >= MAX_DEPTH) return [];
  const variants = (resolved.oneOf ?? resolved.anyOf ?? resolved.allOf) as Json[] | undefined;
  if (Array.isArray(variants)) {
    const seen = new Set<string>();
    const merged: SchemaRow[] = [];
    for (const variant of variants) {
      for (const row of schemaRows(doc, variant, prefix, depth)) {
        if (seen.has(row.name)) continue;
        seen.add(row.name);
        merged.push(resolved.allOf ? row : { ...row, required: false });
      }
    }
    return merged;
  }
  if (resolved.type === 'array') return schemaRows(doc, resolved.items as Json | undefined, `${prefix}[]`, depth);
  const properties = resolved.properties as Record<string, Json> | undefined;
  if (!properties) return [];
  const required = new Set((resolved.required as string[] | undefined) ?? []);
  const rows: SchemaRow[] = [];
  for (const [name, property] of Object.entries(properties)) {
    const fullName = prefix ? `${prefix}.${name}` : name;
    const own = resolve(doc, property);
    rows.push({
      name: fullName,
      type: typeOf(doc, property),
      required: required.has(name),
      description: (property.description ?? own.description) as string | undefined,
      depth,
    });
    rows.push(...schemaRows(doc, property, fullName, depth + 1));
  }
  return rows;
}

function securityOf(operation: Json): string[] {
  const requirements = (operation.security as Array<Record<string, unknown>> | undefined) ?? [];
  return requirements.flatMap((requirement) => Object.keys(requirement));
}

function operationOf(doc: OpenApiDocument, path: string, method: HttpMethod, raw: Json): Operation {
  const parameters = ((raw.parameters as Json[] | undefined) ?? []).map((parameter) => ({
    name: String(parameter.name),
    in: String(parameter.in),
    required: parameter.required === true,
    type: typeOf(doc, parameter.schema as Json | undefined),
    description: (parameter.description ?? (parameter.schema as Json | undefined)?.description) as string | undefined,
  }));
  const body = raw.requestBody as Json | undefined;
  const bodyContent = body?.content as Record<string, Json> | undefined;
  const [bodyType, bodyMedia] = Object.entries(bodyContent ?? {})[0] ?? [];
  const responses = Object.entries((raw.responses as Record<string, Json> | undefined) ?? {}).map(
    ([status, response]) => {
      const [contentType, media] =
        Object.entries((response.content as Record<string, Json> | undefined) ?? {})[0] ?? [];
      const schema = media?.schema as Json | undefined;
      const isProblem = contentType === 'application/problem+json';
      return {
        status,
        description: String(response.description ?? ''),
        contentType,
        schemaName: schema ? typeOf(doc, schema) : undefined,
        rows: schema && !isProblem ? schemaRows(doc, schema) : [],
      };
    },
  );
  return {
    id: String(raw.operationId ?? `${method}-${path}`),
    method,
    path,
    summary: String(raw.summary ?? `${method.toUpperCase()} ${path}`),
    description: raw.description as string | undefined,
    security: securityOf(raw),
    parameters,
    requestBody: bodyType
      ? {
          contentType: bodyType,
          rows: schemaRows(doc, bodyMedia?.schema as Json | undefined),
          example: bodyMedia?.example,
        }
      : undefined,
    responses,
    deprecated: raw.deprecated === true,
  };
}

export type TagSection = { name: string; slug: string; description?: string; operations: Operation[] };

/** Every operation under its first tag, tags in the document's order (untagged ones last, as "Other"). */
export function tagSections(doc: OpenApiDocument): TagSection[] {
  const sections = new Map<string, TagSection>();
  for (const tag of doc.tags ?? []) {
    sections.set(tag.name, { name: tag.name, slug: tagSlug(tag.name), description: tag.description, operations: [] });
  }
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of HTTP_METHODS) {
      const raw = item[method];
      if (!raw) continue;
      const tag = ((raw.tags as string[] | undefined) ?? [])[0] ?? 'Other';
      if (!sections.has(tag)) sections.set(tag, { name: tag, slug: tagSlug(tag), operations: [] });
      sections.get(tag)!.operations.push(operationOf(doc, path, method, raw));
    }
  }
  return [...sections.values()].filter((section) => section.operations.length > 0);
}

export type WebhookEvent = { name: string; summary: string; description?: string; rows: SchemaRow[] };

/** The document's `webhooks`: what each event posts. */
export function webhookEvents(doc: OpenApiDocument): WebhookEvent[] {
  return Object.entries(doc.webhooks ?? {}).map(([name, item]) => {
    const raw = (item.post ?? Object.values(item)[0] ?? {}) as Json;
    const content = (raw.requestBody as Json | undefined)?.content as Record<string, Json> | undefined;
    const schema = Object.values(content ?? {})[0]?.schema as Json | undefined;
    return {
      name,
      summary: String(raw.summary ?? name),
      description: raw.description as string | undefined,
      rows: schemaRows(doc, schema),
    };
  });
}
