import type { Metadata } from 'next';
import Link from 'next/link';
import { InvitationsPanel } from '@/components/settings/invitations-panel';
import { MembersPanel, RoleTable } from '@/components/settings/members-panel';

export const metadata: Metadata = { title: 'Members · Simgate' };

/** Settings → Members: the members, then the invitations, then the table of roles. */
export default function MembersPage() {
  return (
    <>
      <h1 className="text-2xl font-bold tracking-tight">Settings · Members</h1>
      <p className="mt-2 text-sm">
        <Link className="underline" href="/dashboard/settings">
          Back to Settings
        </Link>
      </p>
      <MembersPanel />
      <InvitationsPanel />
      <RoleTable />
    </>
  );
}
