import type { Metadata } from 'next';
import { OptOutSettingsPanel, OptOutsPanel } from '@/components/opt-outs/opt-outs-panel';

export const metadata: Metadata = { title: 'Opt-outs · Simgate' };

export default function OptOutsPage() {
  return (
    <>
      <h1 className="sr-only">Opt-outs</h1>
      <OptOutsPanel />
      <OptOutSettingsPanel />
    </>
  );
}
