import type { Metadata } from 'next';
import { ApiKeysPanel } from '@/components/api-keys/api-keys-panel';

export const metadata: Metadata = { title: 'API keys · Simgate' };

export default function ApiKeysPage() {
  return (
    <>
      <h1 className="sr-only">API keys</h1>
      <ApiKeysPanel />
    </>
  );
}
