import type { Metadata } from 'next';
import { InvitationsPanel } from '@/components/settings/invitations-panel';

export const metadata: Metadata = { title: 'Members · Simgate' };

export default function MembersPage() {
  return (
    <>
      <h1 className="sr-only">Members</h1>
      <InvitationsPanel />
    </>
  );
}
