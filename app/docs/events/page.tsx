import type { Metadata } from 'next';
import { referenceDocument } from '@/app/docs/reference-document';
import { Prose } from '@/components/docs/markdown';
import { SchemaTable } from '@/components/docs/operation';
import { webhookEvents } from '@/lib/openapi/reference';

export const metadata: Metadata = { title: 'Webhook events · API reference · Simgate' };

/** What each webhook event posts to a receiver. */
export default function EventsPage() {
  const events = webhookEvents(referenceDocument());
  return (
    <>
      <h1 className="text-3xl font-bold tracking-tight">Webhook events</h1>
      {events.map((event) => (
        <article
          key={event.name}
          id={event.name}
          aria-labelledby={`${event.name}-title`}
          className="scroll-mt-4 border-t border-slate-200 py-6"
        >
          <h2 id={`${event.name}-title`} className="font-mono text-lg font-semibold">
            {event.name}
          </h2>
          <p className="text-sm text-slate-700">{event.summary}</p>
          <div className="text-sm text-slate-800">
            <Prose text={event.description} />
          </div>
          <SchemaTable label={`Body of ${event.name}`} rows={event.rows} />
        </article>
      ))}
    </>
  );
}
