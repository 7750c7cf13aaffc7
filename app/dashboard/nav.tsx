'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { useEffect, useId, useState } from 'react';
import type { MemberRole } from '@/lib/members/role-names';
import { currentLink, type NavGroup, navGroupsFor } from './nav-links';

/**
 * The dashboard's navigation: a sidebar of grouped links on wide screens (1024 px and more); below
 * that, behind a "Menu" button, so the page starts with its content instead of rows of links. A
 * member sees the links their role may open.
 */
export function DashboardNav({ role }: { role?: MemberRole | null }) {
  const pathname = usePathname();
  const [open, setOpen] = useState(false);
  const listId = useId();
  // A link followed closes the menu.
  // biome-ignore lint/correctness/useExhaustiveDependencies: closing on each path change is the point
  useEffect(() => setOpen(false), [pathname]);
  const current = currentLink(pathname);
  return (
    <nav aria-label="Dashboard" className="my-6 text-sm lg:sticky lg:top-6 lg:my-0 lg:self-start">
      <button
        type="button"
        aria-expanded={open}
        aria-controls={listId}
        onClick={() => setOpen((was) => !was)}
        className="flex w-full items-center justify-between rounded-md border border-slate-300 bg-white px-3 py-2 font-medium lg:hidden"
      >
        <span>
          Menu<span className="text-slate-600">{current ? ` · ${current.label}` : ''}</span>
        </span>
        <span aria-hidden="true">{open ? '▴' : '▾'}</span>
      </button>
      <div id={listId} className={`${open ? 'mt-2 grid gap-3 sm:grid-cols-3' : 'hidden'} lg:block lg:space-y-4`}>
        {navGroupsFor(role).map((group) => (
          <NavSection key={group.label} group={group} current={current?.href} />
        ))}
      </div>
    </nav>
  );
}

function NavSection({ group, current }: { group: NavGroup; current: string | undefined }) {
  // A group of one link named as the group needs no heading of its own.
  const titled = group.links.length > 1 || group.links[0]?.label !== group.label;
  return (
    <div>
      {titled && (
        <p className="px-3 pb-1 text-xs font-semibold uppercase tracking-wide text-slate-600">{group.label}</p>
      )}
      <ul>
        {group.links.map((link) => {
          const here = link.href === current;
          return (
            <li key={link.href}>
              <Link
                href={link.href}
                aria-current={here ? 'page' : undefined}
                className={`block rounded-md px-3 py-1.5 font-medium ${here ? 'bg-slate-900 text-white' : 'text-slate-700 hover:bg-slate-200'}`}
              >
                {link.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </div>
  );
}
