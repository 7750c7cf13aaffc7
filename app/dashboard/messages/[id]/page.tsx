import type { Metadata } from 'next';
import { MessageDetail } from '@/components/messages/message-detail';

export const metadata: Metadata = { title: 'Message · Simgate' };

export default async function MessagePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <MessageDetail messageId={id} />;
}
