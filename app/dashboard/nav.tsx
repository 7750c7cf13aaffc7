'use client';

import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { useEffect, useId, useState } from 'react';
import { isCurrent, NAV_LINKS } from './nav-links';

/**
 * One list of links: a row that wraps on wide screens; behind a "Menu" button at phone width, so the
 * page starts with its content instead of four rows of links.
 */
export function DashboardNav() {
  const pathname = usePathname();
  const [open, setOpen] = useState(false);
  const listId = useId();
  // A link followed closes the menu.
  // biome-ignore lint/correctness/useExhaustiveDependencies: closing on each path change is the point
  useEffect(() => setOpen(false), [pathname]);
  const current = NAV_LINKS.find((link) => isCurrent(link, pathname));
  return (
    <nav aria-label="Dashboard" className="my-6 text-sm">
      <button
        type="button"
        aria-expanded={open}
        aria-controls={listId}
        onClick={() => setOpen((was) => !was)}
        className="flex w-full items-center justify-between rounded-md border border-slate-300 bg-white px-3 py-2 font-medium sm:hidden"
      >
        <span>
          Menu<span className="text-slate-600">{current ? ` · ${current.label}` : ''}</span>
        </span>
        <span aria-hidden="true">{open ? '▴' : '▾'}</span>
      </button>
      <ul id={listId} className={`${open ? 'mt-2 grid grid-cols-2 gap-1' : 'hidden'} sm:flex sm:flex-wrap sm:gap-2`}>
        {NAV_LINKS.map((link) => {
          const here = isCurrent(link, pathname);
          return (
            <li key={link.href}>
              <Link
                href={link.href}
                aria-current={here ? 'page' : undefined}
                className={`block rounded-md px-3 py-2 font-medium sm:py-1.5 ${here ? 'bg-slate-900 text-white' : 'text-slate-700 hover:bg-slate-200'}`}
              >
                {link.label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}
