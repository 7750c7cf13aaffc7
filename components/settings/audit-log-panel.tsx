'use client';

import { useId, useState } from 'react';
import { queryKeys } from '@/components/query-keys';
import { AUDIT_ACTION_LABELS, AUDIT_ACTIONS, type AuditAction } from '@/lib/audit/actions';
import type { auditEntrySchema } from '@/lib/audit/schemas';
import type { z } from '@/lib/zod';
import { ListView } from '../ui/list-view';
import { formatTime, Section } from '../ui/section';
import { EmptyState } from '../ui/states';
import { usePagedList } from '../use-paged-list';
import { useMembers } from './members-panel';

type AuditEntry = z.infer<typeof auditEntrySchema>;

function actorOf(entry: AuditEntry): string {
  if (entry.actor.kind === 'operator') return 'Operator';
  if (entry.member) return entry.member.email ?? entry.actor.label ?? 'a former member';
  const label = entry.actor.label ?? 'unknown';
  return entry.actor.kind === 'api_key' ? `Key ${label}` : entry.actor.kind === 'device' ? `Device ${label}` : label;
}

/** Settings → Security: who changed what, newest first, filtered by action and by member. */
export function AuditLogPanel() {
  const [action, setAction] = useState<AuditAction | ''>('');
  const [memberId, setMemberId] = useState('');
  const filterId = useId();
  const memberFilterId = useId();
  const members = useMembers();
  const query = new URLSearchParams({ ...(action ? { action } : {}), ...(memberId ? { member_id: memberId } : {}) });
  const path = query.size > 0 ? `/api/v1/audit-log?${query}` : '/api/v1/audit-log';
  const list = usePagedList<AuditEntry>(queryKeys.auditLog.list(action, memberId), path);
  return (
    <Section
      title="Audit log"
      actions={
        <div className="flex min-w-0 flex-wrap items-center gap-2 text-sm">
          <label htmlFor={memberFilterId}>Member</label>
          <select
            id={memberFilterId}
            className="min-w-0 max-w-full rounded-md border border-slate-300 px-2 py-1"
            value={memberId}
            onChange={(event) => setMemberId(event.target.value)}
          >
            <option value="">everyone</option>
            {members.data?.data.map((member) => (
              <option key={member.id} value={member.id}>
                {member.email}
              </option>
            ))}
          </select>
          <label htmlFor={filterId}>Action</label>
          <select
            id={filterId}
            className="min-w-0 max-w-full rounded-md border border-slate-300 px-2 py-1"
            value={action}
            onChange={(event) => setAction(event.target.value as AuditAction | '')}
          >
            <option value="">all</option>
            {AUDIT_ACTIONS.map((value) => (
              <option key={value} value={value}>
                {AUDIT_ACTION_LABELS[value]}
              </option>
            ))}
          </select>
        </div>
      }
    >
      <ListView
        list={list}
        empty={
          <EmptyState title="Nothing recorded yet">
            Changes to keys, webhooks, credits and phones, and sign-ins, appear here.
          </EmptyState>
        }
      >
        {(entries) => (
          <ul className="divide-y divide-slate-100 text-sm">
            {entries.map((entry) => (
              <li key={entry.id} className="flex flex-wrap items-baseline justify-between gap-x-4 gap-y-1 py-2">
                <span className="font-medium">{AUDIT_ACTION_LABELS[entry.action]}</span>
                <span className="min-w-0 break-all text-slate-700">
                  {actorOf(entry)}
                  {entry.ip && <span className="text-slate-500"> · {entry.ip}</span>}
                </span>
                <time dateTime={entry.created_at} className="text-slate-600">
                  {formatTime(entry.created_at)}
                </time>
              </li>
            ))}
          </ul>
        )}
      </ListView>
    </Section>
  );
}
