import type { Metadata } from 'next';
import { GroupsPanel } from '@/components/groups/groups-panel';

export const metadata: Metadata = { title: 'Groups · Simgate' };

export default function GroupsPage() {
  return (
    <>
      <h1 className="sr-only">Phone groups</h1>
      <GroupsPanel />
    </>
  );
}
