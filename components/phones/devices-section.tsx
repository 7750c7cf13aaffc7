'use client';

import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import type { Phone } from '@/components/wire';
import { api } from '../api';
import { Button } from '../ui/button';
import { ConfirmDialog } from '../ui/confirm';
import { formatTime, Section } from '../ui/section';
import { EmptyState, ErrorState, Loading } from '../ui/states';
import { useRefresh } from '../use-refresh';
import { type Device, deviceLabel, type SimCard, usePhoneDevices } from './queries';

const STATUS_TEXT: Record<Device['status'], string> = {
  pending_verification: 'awaiting SIM code',
  verified: 'verified',
  activated: 'active',
  revoked: 'revoked',
};

const KIND_TEXT: Record<Device['kind'], string> = { app: 'SMSGate app', simulator: 'Simulator' };

function simText(card: SimCard): string {
  const parts = [card.phone_number, card.carrier].filter(Boolean);
  return `SIM ${card.slot}${parts.length ? `: ${parts.join(', ')}` : ''}`;
}

const CELL = 'py-2 pr-4 align-top';

/** The devices that sent for this phone's number, with a revoke per device still able to send. */
export function DevicesSection({ phone }: { phone: Phone }) {
  const devices = usePhoneDevices(phone.id);
  const [revoking, setRevoking] = useState<Device | null>(null);
  const refresh = useRefresh();
  const revoke = useMutation({
    meta: { success: 'Device revoked' },
    mutationFn: (device: Device) => api(`/api/v1/phones/${phone.id}/devices/${device.id}`, { method: 'DELETE' }),
    onSuccess: () => {
      setRevoking(null);
      return refresh('phones');
    },
  });

  const ask = (device: Device) => {
    revoke.reset();
    setRevoking(device);
  };

  return (
    <Section title="Devices">
      {devices.isPending ? (
        <Loading label="Loading devices…" />
      ) : devices.error ? (
        <ErrorState error={devices.error} onRetry={() => devices.refetch()} />
      ) : devices.data.data.length === 0 ? (
        <EmptyState title="No devices yet">
          Pair the SMSGate app above, or activate the device simulator for this number.
        </EmptyState>
      ) : (
        <>
          <ul className="space-y-3 md:hidden">
            {devices.data.data.map((device) => (
              <li key={device.id} className="rounded-md border border-slate-200 p-4">
                <div className="flex items-start justify-between gap-3">
                  <div className="min-w-0">
                    <p className="font-medium text-slate-900">
                      {KIND_TEXT[device.kind]}
                      {device.name && ` · ${device.name}`}
                    </p>
                    <p className="mt-1 text-sm">
                      <DeviceStatus device={device} />
                    </p>
                  </div>
                  <RevokeButton device={device} onRevoke={ask} />
                </div>
                <dl className="mt-3 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
                  <dt className="text-slate-600">Key</dt>
                  <dd className="min-w-0 break-all">
                    <code className="font-mono text-xs">{device.key_prefix ?? '—'}</code>
                  </dd>
                  <dt className="text-slate-600">SIMs</dt>
                  <dd className="min-w-0">
                    <SimList cards={device.sim_cards} />
                  </dd>
                  <dt className="text-slate-600">Created</dt>
                  <dd>{formatTime(device.created_at)}</dd>
                  <dt className="text-slate-600">Last seen</dt>
                  <dd>{formatTime(device.last_seen_at)}</dd>
                </dl>
              </li>
            ))}
          </ul>
          <div className="relative hidden overflow-x-auto md:block">
            <table className="w-full text-left text-sm">
              <thead className="text-slate-600">
                <tr>
                  <th className={CELL}>Kind</th>
                  <th className={CELL}>Name</th>
                  <th className={CELL}>Status</th>
                  <th className={CELL}>Key</th>
                  <th className={CELL}>SIMs</th>
                  <th className={CELL}>Created</th>
                  <th className={CELL}>Last seen</th>
                  <th className="py-2">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {devices.data.data.map((device) => (
                  <tr key={device.id} className="border-t border-slate-100">
                    <td className={CELL}>{KIND_TEXT[device.kind]}</td>
                    <td className={CELL}>{device.name ?? '—'}</td>
                    <td className={CELL}>
                      <DeviceStatus device={device} />
                    </td>
                    <td className={CELL}>
                      <code className="font-mono text-xs">{device.key_prefix ?? '—'}</code>
                    </td>
                    <td className={CELL}>
                      <SimList cards={device.sim_cards} />
                    </td>
                    <td className={CELL}>{formatTime(device.created_at)}</td>
                    <td className={CELL}>{formatTime(device.last_seen_at)}</td>
                    <td className="py-2 text-right align-top">
                      <RevokeButton device={device} onRevoke={ask} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      <ConfirmDialog
        open={revoking !== null}
        title={`Revoke device ${revoking ? deviceLabel(revoking) : ''}?`}
        confirmLabel="Revoke device"
        pending={revoke.isPending}
        onConfirm={() => revoking && revoke.mutate(revoking)}
        onCancel={() => setRevoking(null)}
      >
        <p>
          The device stops working at once: it can no longer send or receive for {phone.phone}. To use it again, pair it
          again with a new code.
        </p>
        {revoke.error && <ErrorState error={revoke.error} />}
      </ConfirmDialog>
    </Section>
  );
}

function DeviceStatus({ device }: { device: Device }) {
  return (
    <>
      <span className={device.status === 'revoked' ? 'text-slate-600' : 'text-slate-900'}>
        {STATUS_TEXT[device.status]}
      </span>
      {device.current && (
        <span className="ml-1 rounded bg-green-100 px-1.5 py-0.5 text-xs font-medium text-green-800">current</span>
      )}
    </>
  );
}

function SimList({ cards }: { cards: SimCard[] }) {
  if (cards.length === 0) return <>—</>;
  return cards.map((card) => (
    <span key={card.slot} className="block">
      {simText(card)}
    </span>
  ));
}

/** Shown for a device that can still send; its name says which device, so each row's button is distinct. */
function RevokeButton({ device, onRevoke }: { device: Device; onRevoke: (device: Device) => void }) {
  if (device.status === 'revoked') return null;
  return (
    <Button
      variant="secondary"
      className="shrink-0"
      onClick={() => onRevoke(device)}
      aria-label={`Revoke device ${deviceLabel(device)}`}
    >
      Revoke
    </Button>
  );
}
