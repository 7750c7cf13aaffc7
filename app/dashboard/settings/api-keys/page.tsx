import type { Metadata } from 'next';
import { headers } from 'next/headers';
import { ApiKeysPanel } from '@/components/api-keys/api-keys-panel';
import { SmppPanel } from '@/components/api-keys/smpp-panel';
import { TwilioPanel } from '@/components/api-keys/twilio-panel';
import { signedInAccount } from '@/lib/auth/current-account';
import { may } from '@/lib/members/roles';

export const metadata: Metadata = { title: 'API keys · Simgate' };

/** The signed-in role (none for a key's session without one) decides what the panels offer to make. */
export default async function ApiKeysPage() {
  const role = (await signedInAccount((await headers()).get('cookie')))?.role ?? null;
  const mayChangeIntegrations = role === null || may(role, 'integrations', 'write');
  return (
    <>
      <h1 className="sr-only">API keys</h1>
      <ApiKeysPanel role={role} />
      <TwilioPanel mayChange={mayChangeIntegrations} />
      <SmppPanel mayChange={mayChangeIntegrations} />
    </>
  );
}
