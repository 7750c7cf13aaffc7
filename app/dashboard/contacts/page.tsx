import type { Metadata } from 'next';
import { ContactImport } from '@/components/contacts/contact-import';
import { ContactsPanel } from '@/components/contacts/contacts-panel';

export const metadata: Metadata = { title: 'Contacts · Simgate' };

export default function ContactsPage() {
  return (
    <>
      <h1 className="sr-only">Contacts</h1>
      <ContactsPanel />
      <ContactImport />
    </>
  );
}
