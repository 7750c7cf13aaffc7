import type { Operation, SchemaRow } from '@/lib/openapi/reference';
import { Prose } from './markdown';

const METHOD_STYLE: Record<Operation['method'], string> = {
  get: 'bg-sky-100 text-sky-900',
  post: 'bg-green-100 text-green-900',
  put: 'bg-amber-100 text-amber-900',
  patch: 'bg-amber-100 text-amber-900',
  delete: 'bg-red-100 text-red-900',
};

export function MethodBadge({ method }: { method: Operation['method'] }) {
  return (
    <span
      className={`inline-block rounded px-1.5 py-0.5 font-mono text-xs font-bold uppercase ${METHOD_STYLE[method]}`}
    >
      {method}
    </span>
  );
}

/** Below `sm` each row stacks as a card instead of scrolling sideways (the header stays for screen readers). */
const STACKED =
  'max-sm:block max-sm:[&_tbody]:block max-sm:[&_tr]:block max-sm:[&_tr]:py-2 max-sm:[&_td]:block max-sm:[&_th]:block max-sm:[&_td]:py-0.5 max-sm:[&_th]:py-0.5';

/** A schema's rows as a table: nested fields indented under their parent. */
export function SchemaTable({ rows, label }: { rows: SchemaRow[]; label: string }) {
  if (rows.length === 0) return null;
  return (
    <table className={`w-full text-left text-sm ${STACKED}`} aria-label={label}>
      <thead className="text-slate-600 max-sm:sr-only">
        <tr>
          <th scope="col" className="py-1 pr-4 font-medium">
            Field
          </th>
          <th scope="col" className="py-1 pr-4 font-medium">
            Type
          </th>
          <th scope="col" className="py-1 font-medium">
            Description
          </th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.name} className="border-t border-slate-100 align-top">
            <th scope="row" className="py-1.5 pr-4 font-normal" style={{ paddingLeft: `${row.depth}rem` }}>
              <code className="font-mono text-[0.85em] font-semibold break-all text-slate-900">
                {row.name.split('.').at(-1)}
              </code>
              {row.required && <span className="ml-1 text-xs font-medium text-red-800">required</span>}
            </th>
            <td className="py-1.5 pr-4 font-mono text-xs break-words text-slate-700">{row.type}</td>
            <td className="py-1.5 text-slate-800">
              <Prose text={row.description} inline />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const AUTH_LABELS: Record<string, string> = {
  AccountKey: 'account key (X-API-Key: sk_…)',
  DeviceKey: 'device key (X-API-Key: dk_…)',
  Session: 'dashboard session',
  IntegratorBasic: 'Basic (any user, sk_… as password)',
  IntegratorBearer: 'Bearer sk_…',
  AppToken: 'SMSGate app token',
};

/** One operation: what it does, how it is called, and every answer it can give. */
export function OperationView({ operation }: { operation: Operation }) {
  const headingId = `${operation.id}-title`;
  return (
    <article id={operation.id} aria-labelledby={headingId} className="scroll-mt-4 border-t border-slate-200 py-8">
      <h2 id={headingId} className="text-xl font-semibold tracking-tight">
        <a href={`#${operation.id}`} className="hover:underline">
          {operation.summary}
        </a>
        {operation.deprecated && <span className="ml-2 text-sm font-medium text-amber-800">deprecated</span>}
      </h2>
      <p className="mt-2 flex flex-wrap items-center gap-2">
        <MethodBadge method={operation.method} />
        <code className="font-mono text-sm break-all">{operation.path}</code>
      </p>
      <p className="mt-2 text-sm text-slate-700">
        {operation.security.length === 0
          ? 'No authentication.'
          : `Authentication: ${operation.security.map((s) => AUTH_LABELS[s] ?? s).join(', or ')}.`}
      </p>
      <div className="text-sm text-slate-800">
        <Prose text={operation.description} />
      </div>
      {operation.parameters.length > 0 && (
        <>
          <h3 className="mt-4 mb-1 font-semibold">Parameters</h3>
          <SchemaTable
            label={`Parameters of ${operation.summary}`}
            rows={operation.parameters.map((p) => ({
              name: p.name,
              type: `${p.type} · ${p.in}`,
              required: p.required,
              description: p.description,
              depth: 0,
            }))}
          />
        </>
      )}
      {operation.requestBody && (
        <>
          <h3 className="mt-4 mb-1 font-semibold">
            Body{' '}
            <span className="font-mono text-xs font-normal text-slate-600">{operation.requestBody.contentType}</span>
          </h3>
          <SchemaTable label={`Body of ${operation.summary}`} rows={operation.requestBody.rows} />
        </>
      )}
      <h3 className="mt-4 mb-1 font-semibold">Responses</h3>
      <ul className="space-y-3 text-sm">
        {operation.responses.map((response) => (
          <li key={response.status}>
            <p>
              <span className="font-mono font-bold">{response.status}</span>{' '}
              <Prose text={response.description} inline />
              {response.schemaName && (
                <span className="ml-1 font-mono text-xs text-slate-600">
                  {response.contentType === 'application/problem+json' ? 'problem+json' : response.schemaName}
                </span>
              )}
            </p>
            {response.rows.length > 0 && (
              <details className="mt-1">
                <summary className="cursor-pointer text-slate-700">Fields of {response.schemaName}</summary>
                <SchemaTable
                  label={`Fields of the ${response.status} answer of ${operation.summary}`}
                  rows={response.rows}
                />
              </details>
            )}
          </li>
        ))}
      </ul>
    </article>
  );
}
