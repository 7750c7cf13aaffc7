'use client';

import { useMutation } from '@tanstack/react-query';
import { useSearchParams } from 'next/navigation';
import { useState } from 'react';
import { PassphraseField, usePassphrase } from '@/components/crypto/passphrase';
import { ComposeForm } from '@/components/messages/compose-form';
import { queryKeys } from '@/components/query-keys';
import type { Message } from '@/components/wire';
import { api } from '../api';
import { ConfirmDialog } from '../ui/confirm';
import { ListView } from '../ui/list-view';
import { Section } from '../ui/section';
import { EmptyState, ErrorState } from '../ui/states';
import { usePagedList } from '../use-paged-list';
import { useRefresh } from '../use-refresh';
import { Conversations } from './conversations';
import { MessageFilters, useMessageFilters } from './message-filters';
import { MessagesTable } from './messages-table';

export function MessagesPanel() {
  const filterState = useMessageFilters();
  const { filters, query } = filterState;
  // `?view=conversations` opens the conversations (a contact's link to its conversation).
  const params = useSearchParams();
  const [view, setView] = useState<View>(() => (params.get('view') === 'conversations' ? 'conversations' : 'list'));
  const [cancelling, setCancelling] = useState<Message | null>(null);
  const [encrypt, setEncrypt] = useState(false);
  const { passphrase } = usePassphrase();
  const refresh = useRefresh();
  const messages = usePagedList<Message>(
    queryKeys.messages.list(filters),
    `/api/v1/messages${query ? `?${query}` : ''}`,
  );
  const cancel = useMutation({
    mutationFn: (id: string) => api(`/api/v1/messages/${id}/cancel`, { method: 'POST' }),
    onSuccess: () => {
      setCancelling(null);
      return refresh('messages', 'balance', 'ledger', 'groups');
    },
  });
  return (
    <Section title="Messages">
      {/* The passphrase only where it is needed: encryption chosen, an encrypted message listed, or one typed. */}
      {(encrypt || passphrase !== '' || messages.items.some((message) => message.encrypted)) && <PassphraseField />}
      <ComposeForm encrypt={encrypt} setEncrypt={setEncrypt} />
      <MessageFilters state={filterState} />
      <ViewSwitch view={view} onChange={setView} />
      <ListView
        list={messages}
        empty={
          <EmptyState title="No messages">
            {query ? 'Nothing matches these filters.' : 'Send one above, or connect a phone to receive them.'}
          </EmptyState>
        }
      >
        {(items) =>
          view === 'conversations' ? (
            <Conversations messages={items} />
          ) : (
            <MessagesTable items={items} onCancel={setCancelling} />
          )
        }
      </ListView>
      <ConfirmDialog
        open={cancelling !== null}
        title={
          cancelling?.encrypted ? 'Cancel the encrypted message?' : `Cancel the message to ${cancelling?.to ?? ''}?`
        }
        confirmLabel="Cancel message"
        pending={cancel.isPending}
        onConfirm={() => cancelling && cancel.mutate(cancelling.id)}
        onCancel={() => setCancelling(null)}
      >
        {cancelling?.status === 'dispatched'
          ? 'Its phone already holds it: the phone is told to drop it, and its credit goes back once the phone confirms. If the phone sent it already, it stays sent.'
          : 'It will not be sent, and its credit goes back to its group.'}
        {cancel.error && <ErrorState error={cancel.error} />}
      </ConfirmDialog>
    </Section>
  );
}

type View = 'list' | 'conversations';

/** List or conversations: the same messages, two ways. */
function ViewSwitch({ view, onChange }: { view: View; onChange: (view: View) => void }) {
  return (
    <fieldset className="mb-4 flex gap-4 text-sm">
      <legend className="sr-only">View</legend>
      {(
        [
          ['list', 'List'],
          ['conversations', 'Conversations'],
        ] as const
      ).map(([value, label]) => (
        <label key={value} className="flex items-center gap-2">
          <input type="radio" name="messages-view" checked={view === value} onChange={() => onChange(value)} />
          {label}
        </label>
      ))}
    </fieldset>
  );
}
