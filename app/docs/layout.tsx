import Link from 'next/link';
import type { ReactNode } from 'react';
import { referenceDocument } from '@/app/docs/reference-document';
import { tagSections } from '@/lib/openapi/reference';

const NAV_LINK =
  'block rounded px-2 py-1 text-slate-800 hover:bg-slate-200 focus-visible:outline-2 focus-visible:outline-slate-900';

function Contents() {
  const sections = tagSections(referenceDocument());
  return (
    <ul className="space-y-0.5 text-sm">
      <li>
        <Link href="/docs" className={NAV_LINK}>
          Introduction
        </Link>
      </li>
      {sections.map((section) => (
        <li key={section.slug}>
          <Link href={`/docs/${section.slug}`} className={NAV_LINK}>
            {section.name}
          </Link>
        </li>
      ))}
      <li>
        <Link href="/docs/events" className={NAV_LINK}>
          Webhook events
        </Link>
      </li>
      <li>
        <Link href="/docs/errors" className={NAV_LINK}>
          Errors
        </Link>
      </li>
      <li>
        <a href="/api/v1/openapi.json" className={NAV_LINK}>
          OpenAPI document (JSON)
        </a>
      </li>
    </ul>
  );
}

/**
 * The API reference, rendered on the server from the OpenAPI document the API serves: no client
 * script, so it loads at once and reads well with a screen reader or at phone width.
 */
export default function DocsLayout({ children }: { children: ReactNode }) {
  return (
    <div className="mx-auto max-w-6xl px-4 py-6 sm:px-6">
      <header className="flex flex-wrap items-baseline justify-between gap-2 border-b border-slate-200 pb-4">
        <p className="text-xl font-bold tracking-tight">
          <Link href="/">Simgate</Link> <span className="font-normal text-slate-600">API reference</span>
        </p>
        <Link href="/dashboard" className="text-sm font-medium underline">
          Dashboard
        </Link>
      </header>
      <div className="mt-4 gap-8 lg:grid lg:grid-cols-[14rem_1fr]">
        <nav aria-label="API reference" className="mb-4 lg:sticky lg:top-4 lg:mb-0 lg:self-start">
          <details className="rounded-md border border-slate-200 bg-white p-2 lg:hidden">
            <summary className="cursor-pointer px-2 py-1 text-sm font-medium">Contents</summary>
            <Contents />
          </details>
          <div className="hidden lg:block">
            <Contents />
          </div>
        </nav>
        <main className="min-w-0">{children}</main>
      </div>
    </div>
  );
}
