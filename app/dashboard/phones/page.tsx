import type { Metadata } from 'next';
import { PhonesPanel } from '@/components/phones/phones-panel';

export const metadata: Metadata = { title: 'Phones · Simgate' };

export default function PhonesPage() {
  return (
    <>
      <h1 className="sr-only">Phones</h1>
      <PhonesPanel />
    </>
  );
}
