import type { Metadata } from 'next';
import { notFound } from 'next/navigation';
import { referenceDocument } from '@/app/docs/reference-document';
import { Prose } from '@/components/docs/markdown';
import { OperationView } from '@/components/docs/operation';
import { tagSections } from '@/lib/openapi/reference';

type Params = { params: Promise<{ tag: string }> };

function sectionOf(slug: string) {
  return tagSections(referenceDocument()).find((section) => section.slug === slug);
}

export async function generateMetadata({ params }: Params): Promise<Metadata> {
  const section = sectionOf((await params).tag);
  return { title: `${section?.name ?? 'Not found'} · API reference · Simgate` };
}

/** One tag's operations in full. */
export default async function TagPage({ params }: Params) {
  const section = sectionOf((await params).tag);
  if (!section) notFound();
  return (
    <>
      <h1 className="text-3xl font-bold tracking-tight">{section.name}</h1>
      <div className="max-w-3xl text-slate-800">
        <Prose text={section.description} />
      </div>
      {section.operations.map((operation) => (
        <OperationView key={operation.id} operation={operation} />
      ))}
    </>
  );
}
