import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import './globals.css';

// Every page renders per request: its scripts carry that request's CSP nonce (proxy.ts).
export const dynamic = 'force-dynamic';

export const metadata: Metadata = {
  title: 'Simgate',
  description: 'Send and receive SMS through your own Android phones.',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen bg-slate-50 text-slate-900 antialiased">{children}</body>
    </html>
  );
}
