'use client';

import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import type { Webhook } from '@/components/wire';
import { api } from '../api';
import { useRefresh } from '../use-refresh';

export type Secret = { label: string; value: string };
export type Confirming = { kind: 'delete' | 'rotate'; webhook: Webhook };

/** What a listed webhook can do, and the state those actions show: a secret once, the open deliveries, a confirm. */
export function useWebhookActions() {
  const refreshAll = useRefresh();
  const [secret, setSecret] = useState<Secret | null>(null);
  const [confirming, setConfirming] = useState<Confirming | null>(null);
  const [openDeliveries, setOpenDeliveries] = useState<string | null>(null);
  const refresh = () => refreshAll('webhooks');

  const update = useMutation({
    mutationFn: ({ id, ...change }: { id: string; enabled?: boolean; accept_replies?: boolean }) =>
      api(`/api/v1/webhooks/${id}`, { method: 'PATCH', body: change }),
    onSuccess: refresh,
  });
  const reveal = useMutation({
    mutationFn: (id: string) => api<{ secret: string }>(`/api/v1/webhooks/${id}/secret`),
    onSuccess: (result) => setSecret({ label: 'Signing secret', value: result.secret }),
  });
  const test = useMutation({
    meta: { success: 'Test event queued' },
    mutationFn: (id: string) => api(`/api/v1/webhooks/${id}/test`, { method: 'POST' }),
    onSuccess: (_result, id) => {
      setOpenDeliveries(id);
      return refreshAll('deliveries');
    },
  });
  const confirm = useMutation({
    mutationFn: async ({ kind, webhook }: Confirming) =>
      kind === 'delete'
        ? api(`/api/v1/webhooks/${webhook.id}`, { method: 'DELETE' })
        : api<{ secret: string }>(`/api/v1/webhooks/${webhook.id}/rotate-secret`, { method: 'POST' }),
    onSuccess: (result, { kind }) => {
      setConfirming(null);
      if (kind === 'rotate' && result) {
        setSecret({
          label: 'New signing secret (the old one keeps signing for 24 h)',
          value: (result as { secret: string }).secret,
        });
      }
      return refresh();
    },
  });
  const toggleDeliveries = (id: string) => setOpenDeliveries(openDeliveries === id ? null : id);

  return {
    secret,
    setSecret,
    confirming,
    setConfirming,
    openDeliveries,
    toggleDeliveries,
    update,
    reveal,
    test,
    confirm,
    actionError: update.error ?? reveal.error ?? test.error,
  };
}

export type WebhookActions = ReturnType<typeof useWebhookActions>;
