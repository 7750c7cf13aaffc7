'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import { queryKeys } from '@/components/query-keys';
import type { Message, Phone } from '@/components/wire';
import { api, type Page } from '../api';
import { ConfirmDialog } from '../ui/confirm';
import { ErrorState } from '../ui/states';
import { useRefresh } from '../use-refresh';

/** The most of one state the dialog counts; beyond it says "100 or more". */
const COUNT_LIMIT = 100;

/** Outbound messages of the phone in one unsent state, counted from one page of the list. */
async function countUnsent(phone: string, status: 'queued' | 'dispatched'): Promise<number> {
  const query = new URLSearchParams({ phone, status, direction: 'outbound', limit: String(COUNT_LIMIT) });
  const page = await api<Page<Message>>(`/api/v1/messages?${query}`);
  return page.data.length;
}

/**
 * Confirms removing a phone, saying first what becomes of the messages it has not sent: the API fails
 * them and gives their credits back (lib/phones/delete.ts).
 */
export function RemovePhoneDialog({
  phone,
  onClose,
  onRemoved,
}: {
  phone: Phone | null;
  onClose: () => void;
  onRemoved?: () => void;
}) {
  const refresh = useRefresh();
  const unsent = useQuery({
    queryKey: queryKeys.messages.unsentOf(phone?.phone ?? ''),
    enabled: phone !== null,
    queryFn: async () => {
      const [queued, dispatched] = await Promise.all([
        countUnsent(phone!.phone, 'queued'),
        countUnsent(phone!.phone, 'dispatched'),
      ]);
      return { count: queued + dispatched, capped: queued === COUNT_LIMIT || dispatched === COUNT_LIMIT };
    },
  });
  const remove = useMutation({
    meta: { success: 'Phone removed' },
    mutationFn: (id: string) => api(`/api/v1/phones/${id}`, { method: 'DELETE' }),
    onSuccess: async () => {
      onClose();
      onRemoved?.();
      await refresh('phones', 'groups', 'messages', 'balance', 'ledger');
    },
  });
  const count = unsent.data?.count ?? 0;
  const many = count !== 1;
  return (
    <ConfirmDialog
      open={phone !== null}
      title={`Remove ${phone?.phone ?? ''}?`}
      confirmLabel="Remove phone"
      pending={remove.isPending}
      onConfirm={() => phone && remove.mutate(phone.id)}
      onCancel={() => {
        remove.reset();
        onClose();
      }}
    >
      <p>The phone stops sending for this account and its device is signed out. Its message history stays.</p>
      <p className="mt-2" data-testid="unsent-notice">
        {unsent.isPending
          ? 'Counting the messages it has not sent yet…'
          : unsent.error
            ? 'Messages it has not sent yet will fail, and their credits go back to their groups.'
            : count === 0
              ? 'It has no message waiting to be sent.'
              : `${unsent.data?.capped ? `${count} or more` : count} message${many ? 's' : ''} it has not sent yet will fail, and ${many ? 'their credits go' : 'its credit goes'} back to the group${many ? 's they' : ' it'} came from.`}
      </p>
      {remove.error && <ErrorState error={remove.error} />}
    </ConfirmDialog>
  );
}
