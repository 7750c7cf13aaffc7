import type { Metadata } from 'next';
import { CreditsPanel } from '@/components/panels/credits-panel';
import { GroupsPanel } from '@/components/panels/groups-panel';

export const metadata: Metadata = { title: 'Groups & credits · Simgate' };

export default function GroupsPage() {
  return (
    <>
      <h1 className="sr-only">Groups and credits</h1>
      <GroupsPanel />
      <CreditsPanel />
    </>
  );
}
