import type { Metadata } from 'next';
import { ERROR_CODES, type ErrorCode } from '@/lib/errors';

export const metadata: Metadata = { title: 'Errors · API reference · Simgate' };

/**
 * Every error code the API answers, from the error catalogue (lib/errors.ts): a problem body's `type`
 * (`/docs/errors#CODE`) points at its row.
 */
export default function ErrorsPage() {
  const codes = Object.keys(ERROR_CODES) as ErrorCode[];
  return (
    <>
      <h1 className="text-3xl font-bold tracking-tight">Errors</h1>
      <p className="mt-2 max-w-prose text-sm text-slate-700">
        Errors are RFC 9457 problem details (<code>application/problem+json</code>): <code>code</code> is
        machine-readable, <code>detail</code> says what happened, <code>errors</code> names each invalid field, and{' '}
        <code>request_id</code> matches the <code>x-request-id</code> header. A code's status can differ by operation,
        as noted.
      </p>
      <div className="mt-4 overflow-x-auto">
        <table className="w-full text-left text-sm">
          <caption className="sr-only">Error codes</caption>
          <thead>
            <tr className="border-b border-slate-300">
              <th scope="col" className="py-2 pr-4">
                Code
              </th>
              <th scope="col" className="py-2 pr-4">
                Status
              </th>
              <th scope="col" className="py-2">
                Meaning
              </th>
            </tr>
          </thead>
          <tbody>
            {codes.map((code) => {
              const entry: { status: number; title: string; statusByOperation?: Record<string, number> } =
                ERROR_CODES[code];
              const others = Object.entries(entry.statusByOperation ?? {});
              return (
                <tr key={code} id={code} className="scroll-mt-4 border-b border-slate-200 align-top">
                  <th scope="row" className="py-2 pr-4 font-mono font-medium break-all">
                    {code}
                  </th>
                  <td className="py-2 pr-4">
                    {entry.status}
                    {others.map(([operation, status]) => (
                      <span key={operation} className="block text-slate-600">
                        {status} on a {operation}
                      </span>
                    ))}
                  </td>
                  <td className="py-2">{entry.title}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
    </>
  );
}
