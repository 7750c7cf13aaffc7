import type { Metadata } from 'next';
import { MessagesPanel } from '@/components/panels/messages-panel';

export const metadata: Metadata = { title: 'Messages · Simgate' };

export default function MessagesPage() {
  return (
    <>
      <h1 className="sr-only">Messages</h1>
      <MessagesPanel />
    </>
  );
}
