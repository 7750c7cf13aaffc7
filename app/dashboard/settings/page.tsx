import type { Metadata } from 'next';
import { AuditLogPanel } from '@/components/security/audit-log-panel';
import { SecurityPanel } from '@/components/security/security-panel';

export const metadata: Metadata = { title: 'Settings · Simgate' };

export default function SettingsPage() {
  return (
    <>
      <h1 className="text-2xl font-bold tracking-tight">Settings</h1>
      <SecurityPanel />
      <AuditLogPanel />
    </>
  );
}
