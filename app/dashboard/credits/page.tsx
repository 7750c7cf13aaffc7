import type { Metadata } from 'next';
import { CreditsPanel } from '@/components/credits/credits-panel';

export const metadata: Metadata = { title: 'Credits · Simgate' };

export default function CreditsPage() {
  return (
    <>
      <h1 className="sr-only">Credits</h1>
      <CreditsPanel />
    </>
  );
}
