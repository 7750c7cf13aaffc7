import type { Metadata } from 'next';
import Link from 'next/link';
import { referenceDocument } from '@/app/docs/reference-document';
import { Prose } from '@/components/docs/markdown';
import { MethodBadge } from '@/components/docs/operation';
import { tagSections } from '@/lib/openapi/reference';

export const metadata: Metadata = { title: 'API reference · Simgate' };

export default function DocsPage() {
  const doc = referenceDocument();
  const sections = tagSections(doc);
  const schemes = Object.entries(doc.components?.securitySchemes ?? {});
  return (
    <>
      <h1 className="text-3xl font-bold tracking-tight">{doc.info.title}</h1>
      <p className="mt-1 text-sm text-slate-600">Version {doc.info.version} · OpenAPI 3.1</p>
      <div className="mt-4 max-w-3xl text-slate-800">
        <Prose text={doc.info.description} />
      </div>
      <h2 className="mt-8 text-xl font-semibold">Authentication</h2>
      <dl className="mt-2 max-w-3xl space-y-3 text-sm">
        {schemes.map(([name, scheme]) => (
          <div key={name}>
            <dt className="font-mono font-semibold">{name}</dt>
            <dd className="text-slate-800">
              <Prose text={scheme.description as string | undefined} inline />
            </dd>
          </div>
        ))}
      </dl>
      <h2 className="mt-8 text-xl font-semibold">Operations</h2>
      {sections.map((section) => (
        <section key={section.slug} aria-labelledby={`${section.slug}-title`} className="mt-6">
          <h3 id={`${section.slug}-title`} className="text-lg font-semibold">
            <Link href={`/docs/${section.slug}`} className="underline underline-offset-2">
              {section.name}
            </Link>
          </h3>
          <ul className="mt-2 space-y-1 text-sm">
            {section.operations.map((operation) => (
              <li key={operation.id} className="flex flex-wrap items-center gap-2">
                <MethodBadge method={operation.method} />
                <Link href={`/docs/${section.slug}#${operation.id}`} className="font-mono break-all hover:underline">
                  {operation.path}
                </Link>
                <span className="text-slate-700">{operation.summary}</span>
              </li>
            ))}
          </ul>
        </section>
      ))}
    </>
  );
}
