import Link from 'next/link';

export default function HomePage() {
  return (
    <main className="mx-auto max-w-3xl px-6 py-16">
      <h1 className="text-4xl font-bold tracking-tight">Simgate</h1>
      <p className="mt-4 text-lg text-slate-700">
        An SMS gateway on your own Android phones: integrators send and receive text messages through a REST API, and
        your phones do the sending.
      </p>
      <nav aria-label="Main" className="mt-8 flex flex-wrap gap-3">
        <Link className="rounded-md bg-slate-900 px-4 py-2 font-medium text-white hover:bg-slate-700" href="/sign-in">
          Sign in
        </Link>
        <Link className="rounded-md border border-slate-300 px-4 py-2 font-medium hover:bg-white" href="/docs">
          API reference
        </Link>
        <a
          className="rounded-md border border-slate-300 px-4 py-2 font-medium hover:bg-white"
          href="/api/v1/openapi.json"
        >
          OpenAPI document
        </a>
      </nav>
      <section className="mt-12 space-y-2 text-slate-700">
        <h2 className="text-xl font-semibold text-slate-900">Getting started</h2>
        <ol className="list-decimal space-y-1 pl-6">
          <li>Register a phone&apos;s number and verify its SIM with the code it receives.</li>
          <li>Bind an email to activate the device; your account is created.</li>
          <li>Create an API key and send your first message.</li>
        </ol>
      </section>
    </main>
  );
}
