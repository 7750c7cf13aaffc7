import type { Metadata } from 'next';
import { CallbackSecretPanel } from '@/components/webhooks/callback-secret-panel';
import { WebhooksPanel } from '@/components/webhooks/webhooks-panel';

export const metadata: Metadata = { title: 'Webhooks · Simgate' };

export default function WebhooksPage() {
  return (
    <>
      <h1 className="sr-only">Webhooks</h1>
      <WebhooksPanel />
      <CallbackSecretPanel />
    </>
  );
}
