import type { AlertSubjectType } from '@/db/schema/alert-kinds';

/** The dashboard page of an alert's subject, relative to the site. */
export function alertSubjectPath(subject: { type: AlertSubjectType; id: string }): string {
  switch (subject.type) {
    case 'phone':
      return `/dashboard/phones/${encodeURIComponent(subject.id)}`;
    case 'group':
      return '/dashboard/groups';
    case 'webhook':
      return '/dashboard/settings/webhooks';
  }
}
