'use client';

import { usePathname, useRouter, useSearchParams } from 'next/navigation';
import { useEffect, useState } from 'react';
import { MESSAGE_STATUSES } from '@/components/messages/status-badge';
import { usePhones } from '../lists';

const STATUSES = ['', ...MESSAGE_STATUSES];

/** The search box's text, kept in the URL (`?q=`) once typing pauses. */
function useSearchInUrl(): [string, string, (value: string) => void] {
  const params = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const applied = params.get('q') ?? '';
  const [typed, setTyped] = useState(applied);
  useEffect(() => {
    const timer = setTimeout(() => {
      if (typed.trim() === applied) return;
      const next = new URLSearchParams(params.toString());
      if (typed.trim()) next.set('q', typed.trim());
      else next.delete('q');
      router.replace(`${pathname}${next.size > 0 ? `?${next}` : ''}`, { scroll: false });
    }, 300);
    return () => clearTimeout(timer);
  }, [typed, applied, params, pathname, router]);
  return [typed, applied, setTyped];
}

/** The message list's filters as state, and as the API's query parameters (`filters`, `query`). */
export function useMessageFilters() {
  const initialParams = useSearchParams();
  const [status, setStatus] = useState('');
  const [direction, setDirection] = useState('');
  // A phone's page links here with `?phone=` to show all of its messages.
  const [phone, setPhone] = useState(() => initialParams.get('phone') ?? '');
  const [fromDay, setFromDay] = useState('');
  const [toDay, setToDay] = useState('');
  const [typed, search, setTyped] = useSearchInUrl();
  // Search matches whole words unless asked for any part of the text (`match=substring`).
  const [anywhere, setAnywhere] = useState(false);
  // Days are the viewer's own: from the start of the first to the end of the last.
  const createdAfter = fromDay ? new Date(`${fromDay}T00:00:00`).toISOString() : '';
  const createdBefore = toDay ? new Date(new Date(`${toDay}T00:00:00`).getTime() + 86_400_000).toISOString() : '';
  const filters = {
    ...(status ? { status } : {}),
    ...(direction ? { direction } : {}),
    ...(search ? { q: search, ...(anywhere ? { match: 'substring' } : {}) } : {}),
    ...(phone ? { phone } : {}),
    ...(createdAfter ? { created_after: createdAfter } : {}),
    ...(createdBefore ? { created_before: createdBefore } : {}),
  };
  const query = new URLSearchParams(filters).toString();
  return {
    status,
    setStatus,
    direction,
    setDirection,
    phone,
    setPhone,
    fromDay,
    setFromDay,
    toDay,
    setToDay,
    typed,
    setTyped,
    anywhere,
    setAnywhere,
    filters,
    query,
  };
}

/** Search, status, direction, phone and days above the message list. */
export function MessageFilters({ state }: { state: ReturnType<typeof useMessageFilters> }) {
  const phones = usePhones();
  const { typed, setTyped, anywhere, setAnywhere, status, setStatus, direction, setDirection, phone, setPhone } = state;
  const { fromDay, setFromDay, toDay, setToDay } = state;
  return (
    <div className="mb-4 flex flex-wrap gap-4 text-sm">
      <label className="flex items-center gap-2">
        Search
        <input
          type="search"
          className="rounded-md border border-slate-300 px-2 py-1"
          placeholder="Words or +1415…"
          value={typed}
          onChange={(e) => setTyped(e.target.value)}
          maxLength={100}
        />
      </label>
      <label className="flex items-center gap-2">
        <input type="checkbox" checked={anywhere} onChange={(e) => setAnywhere(e.target.checked)} />
        Any part of a word
      </label>
      <label className="flex items-center gap-2">
        Status
        <select
          className="rounded-md border border-slate-300 px-2 py-1"
          value={status}
          onChange={(e) => setStatus(e.target.value)}
        >
          {STATUSES.map((s) => (
            <option key={s} value={s}>
              {s || 'any'}
            </option>
          ))}
        </select>
      </label>
      <label className="flex items-center gap-2">
        Direction
        <select
          className="rounded-md border border-slate-300 px-2 py-1"
          value={direction}
          onChange={(e) => setDirection(e.target.value)}
        >
          <option value="">any</option>
          <option value="outbound">outbound</option>
          <option value="inbound">inbound</option>
        </select>
      </label>
      <label className="flex items-center gap-2">
        Phone
        <select
          className="rounded-md border border-slate-300 px-2 py-1"
          aria-label="Phone"
          value={phone}
          onChange={(e) => setPhone(e.target.value)}
        >
          <option value="">any</option>
          {(phones.data ?? []).map((option) => (
            <option key={option.id} value={option.phone}>
              {option.label ? `${option.label} (${option.phone})` : option.phone}
            </option>
          ))}
        </select>
      </label>
      <label className="flex items-center gap-2">
        Since
        <input
          type="date"
          className="rounded-md border border-slate-300 px-2 py-1"
          value={fromDay}
          max={toDay || undefined}
          onChange={(e) => setFromDay(e.target.value)}
        />
      </label>
      <label className="flex items-center gap-2">
        Until
        <input
          type="date"
          className="rounded-md border border-slate-300 px-2 py-1"
          value={toDay}
          min={fromDay || undefined}
          onChange={(e) => setToDay(e.target.value)}
        />
      </label>
    </div>
  );
}
