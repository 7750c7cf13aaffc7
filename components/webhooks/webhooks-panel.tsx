'use client';

import { queryKeys } from '@/components/query-keys';
import type { Webhook } from '@/components/wire';
import { ConfirmDialog } from '../ui/confirm';
import { ListView } from '../ui/list-view';
import { SecretOnce } from '../ui/secret-once';
import { Section } from '../ui/section';
import { EmptyState, ErrorState } from '../ui/states';
import { usePagedList } from '../use-paged-list';
import { useWebhookActions } from './use-webhook-actions';
import { WebhookForm } from './webhook-form';
import { WebhookItem } from './webhook-item';

export function WebhooksPanel() {
  const webhooks = usePagedList<Webhook>(queryKeys.webhooks.list(), '/api/v1/webhooks');
  const actions = useWebhookActions();
  const { secret, setSecret, confirming, setConfirming, confirm, actionError } = actions;

  return (
    <Section title="Webhooks">
      <WebhookForm onSecret={setSecret} />
      {secret && <SecretOnce label={secret.label} value={secret.value} onDone={() => setSecret(null)} />}
      {actionError && <ErrorState error={actionError} />}

      <ListView
        list={webhooks}
        empty={<EmptyState title="No webhooks yet">Add one to receive inbound SMS and delivery reports.</EmptyState>}
      >
        {(items) => (
          <ul className="space-y-3">
            {items.map((webhook) => (
              <WebhookItem key={webhook.id} webhook={webhook} actions={actions} />
            ))}
          </ul>
        )}
      </ListView>
      <ConfirmDialog
        open={confirming !== null}
        title={confirming?.kind === 'delete' ? 'Delete this webhook?' : 'Rotate the signing secret?'}
        confirmLabel={confirming?.kind === 'delete' ? 'Delete webhook' : 'Rotate secret'}
        pending={confirm.isPending}
        onConfirm={() => confirming && confirm.mutate(confirming)}
        onCancel={() => setConfirming(null)}
      >
        {confirming?.kind === 'delete'
          ? 'No more events will be sent to it, and its delivery history is deleted.'
          : 'A new secret signs from now on; the current one keeps signing alongside it for 24 hours.'}
        {confirm.error && <ErrorState error={confirm.error} />}
      </ConfirmDialog>
    </Section>
  );
}
