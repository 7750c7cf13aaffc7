'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';

const LINKS = [
  { href: '/dashboard', label: 'Phones' },
  { href: '/dashboard/groups', label: 'Groups & credits' },
  { href: '/dashboard/messages', label: 'Messages' },
  { href: '/dashboard/opt-outs', label: 'Opt-outs' },
  { href: '/dashboard/settings', label: 'Settings' },
  { href: '/docs', label: 'API reference' },
];

export function DashboardNav() {
  const pathname = usePathname();
  return (
    <nav aria-label="Dashboard" className="my-6 flex flex-wrap gap-2 text-sm">
      {LINKS.map((link) => {
        const current = pathname === link.href;
        return (
          <Link
            key={link.href}
            href={link.href}
            aria-current={current ? 'page' : undefined}
            className={`rounded-md px-3 py-1.5 font-medium ${current ? 'bg-slate-900 text-white' : 'text-slate-700 hover:bg-slate-200'}`}
          >
            {link.label}
          </Link>
        );
      })}
    </nav>
  );
}
