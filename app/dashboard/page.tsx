import type { Metadata } from 'next';
import { Overview } from '@/components/overview/overview';

export const metadata: Metadata = { title: 'Overview · Simgate' };

export default function OverviewPage() {
  return (
    <>
      <h1 className="text-2xl font-bold tracking-tight">Overview</h1>
      <Overview />
    </>
  );
}
