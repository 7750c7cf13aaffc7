import type { Metadata } from 'next';
import { AutomationPage } from '@/components/automation/automation-page';

export const metadata: Metadata = { title: 'Automation · Simgate' };

export default function Automation() {
  return <AutomationPage />;
}
