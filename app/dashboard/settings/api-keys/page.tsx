import type { Metadata } from 'next';
import { ApiKeysPanel } from '@/components/api-keys/api-keys-panel';
import { SmppPanel } from '@/components/api-keys/smpp-panel';
import { TwilioPanel } from '@/components/api-keys/twilio-panel';

export const metadata: Metadata = { title: 'API keys · Simgate' };

export default function ApiKeysPage() {
  return (
    <>
      <h1 className="sr-only">API keys</h1>
      <ApiKeysPanel />
      <TwilioPanel />
      <SmppPanel />
    </>
  );
}
