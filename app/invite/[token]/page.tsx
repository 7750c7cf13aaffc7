import type { Metadata } from 'next';
import Link from 'next/link';
import { type InvitationView, invitationOfLink } from '@/lib/members/invitations';
import { JoinForm } from './join-form';

export const metadata: Metadata = { title: 'Join an account · Simgate' };
export const dynamic = 'force-dynamic';

const ENDED: Record<Exclude<InvitationView['status'], 'pending'>, string> = {
  expired: 'This invitation has expired. Ask whoever invited you to send it again.',
  revoked: 'This invitation was revoked. Ask whoever invited you for a new one if you still need access.',
  accepted: 'This invitation was accepted already: sign in to reach the account.',
};

/**
 * Where an invitation's emailed link leads: what the link invites to, and sign-in by a code sent to the
 * invited email, which joins the account in the same step (someone with no account anywhere included).
 */
export default async function InvitePage({ params }: { params: Promise<{ token: string }> }) {
  const { token } = await params;
  const invitation = await invitationOfLink(token);
  return (
    <main className="mx-auto max-w-md px-6 py-16">
      <h1 className="text-3xl font-bold tracking-tight">Join a Simgate account</h1>
      {!invitation ? (
        <p role="alert" className="mt-6 text-sm text-red-800">
          This invitation link is not valid: open the link from the email again, or ask for a new invitation.
        </p>
      ) : invitation.status === 'pending' ? (
        <>
          <p className="mt-2 text-sm text-slate-700" data-testid="invitation-summary">
            You are invited to join <strong>{invitation.accountEmail}</strong> as <strong>{invitation.role}</strong>.
            The invitation is valid until {new Date(invitation.expiresAt).toUTCString()}.
          </p>
          <JoinForm token={token} email={invitation.email} />
        </>
      ) : (
        <>
          <p role="alert" className="mt-6 text-sm text-red-800">
            {ENDED[invitation.status]}
          </p>
          <p className="mt-4 text-sm">
            <Link className="font-medium underline" href="/sign-in">
              Go to sign-in
            </Link>
          </p>
        </>
      )}
    </main>
  );
}
