import type { Metadata } from 'next';
import { DeliveryDetail } from '@/components/webhooks/delivery-detail';

export const metadata: Metadata = { title: 'Webhook delivery · Simgate' };

export default async function DeliveryPage({ params }: { params: Promise<{ id: string; deliveryId: string }> }) {
  const { id, deliveryId } = await params;
  return <DeliveryDetail webhookId={id} deliveryId={deliveryId} />;
}
