import type { Metadata } from 'next';
import { PhoneDetail } from '@/components/phones/phone-detail';

export const metadata: Metadata = { title: 'Phone · Simgate' };

export default async function PhonePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  return <PhoneDetail phoneId={id} />;
}
