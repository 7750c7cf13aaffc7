'use client';

import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { type ReactNode, useEffect, useRef, useState } from 'react';
import type { Phone } from '@/components/wire';
import { ApiProblem } from '../api';
import { useGroups } from '../lists';
import { Button } from '../ui/button';
import { formatTime, Section } from '../ui/section';
import { ErrorState, Loading } from '../ui/states';
import { SimBadge, StatusBadge } from './badges';
import { BatterySection } from './battery-section';
import { ConnectPanel } from './connect-panel';
import { DevicesSection } from './devices-section';
import { InboxRecovery } from './inbox-recovery';
import { PhoneMessages } from './phone-messages';
import { PhoneSettings } from './phone-settings';
import { usePhone } from './queries';
import { QuotaMeters } from './quota-meters';
import { RemovePhoneDialog } from './remove-phone-dialog';
import { SimCheckPanel } from './sim-check-panel';

/** Status and battery change on their own: ask now and then even when nothing is awaited. */
const IDLE_INTERVAL_MS = 30_000;

const BACK_LINK =
  'text-sm font-medium text-slate-700 underline underline-offset-2 hover:text-slate-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-slate-900';

/** An unknown phone, or an id that cannot be one. */
function isMissing(error: unknown): boolean {
  return error instanceof ApiProblem && (error.status === 404 || (error.status === 400 && !!error.fieldError('id')));
}

export function PhoneDetail({ phoneId }: { phoneId: string }) {
  const phone = usePhone(phoneId, IDLE_INTERVAL_MS);

  if (phone.isPending) {
    return (
      <>
        <h1 className="sr-only">Phone</h1>
        <Loading label="Loading phone…" />
      </>
    );
  }
  if (phone.error) {
    if (isMissing(phone.error)) {
      return (
        <div className="rounded-lg border border-dashed border-slate-300 bg-white p-8 text-center">
          <h1 className="text-xl font-semibold text-slate-900">Phone not found</h1>
          <p className="mt-2 text-sm text-slate-600">
            There is no such phone in this account. It may have been removed.
          </p>
          <p className="mt-4">
            <Link href="/dashboard/phones" className={BACK_LINK}>
              Back to phones
            </Link>
          </p>
        </div>
      );
    }
    return (
      <>
        <h1 className="text-2xl font-bold tracking-tight">Phone</h1>
        <ErrorState error={phone.error} onRetry={() => phone.refetch()} />
      </>
    );
  }
  return <PhoneView phone={phone.data} />;
}

function PhoneView({ phone }: { phone: Phone }) {
  const groups = useGroups();
  const groupName = groups.data?.find((g) => g.id === phone.group_id)?.name ?? `#${phone.group_id}`;
  const simNotice = useSimVerifiedNotice(phone.sim_verification);
  const [removing, setRemoving] = useState(false);
  const router = useRouter();

  return (
    <>
      <div>
        <Link href="/dashboard/phones" className={BACK_LINK}>
          ← All phones
        </Link>
        <div className="mt-3 flex flex-wrap items-center gap-x-3 gap-y-2">
          <h1 className="text-2xl font-bold tracking-tight">{phone.phone}</h1>
          <StatusBadge status={phone.status} />
          <SimBadge verification={phone.sim_verification} />
        </div>
        {phone.label && <p className="mt-1 text-sm text-slate-600">{phone.label}</p>}
        <p role="status" className="text-sm font-medium text-green-800">
          {simNotice && <span className="mt-2 block">{simNotice}</span>}
        </p>
      </div>

      <Section title="Details">
        <dl className="grid grid-cols-1 gap-x-6 gap-y-4 text-sm sm:grid-cols-3">
          <Detail term="Number">{phone.phone}</Detail>
          <Detail term="Label">{phone.label ?? '—'}</Detail>
          <Detail term="Group">{groupName}</Detail>
          <Detail term="Status">
            <StatusBadge status={phone.status} />
            <span className="ml-2 text-slate-600">
              {phone.device_connected ? 'device connected' : 'no device connected'}
            </span>
          </Detail>
          <Detail term="Battery">{phone.battery === null ? '—' : `${phone.battery}%`}</Detail>
          <Detail term="Last heartbeat">{formatTime(phone.last_heartbeat_at)}</Detail>
          <Detail term="SIM verification">
            <SimBadge verification={phone.sim_verification} />
          </Detail>
          {phone.paused_until && (
            <Detail term="Paused">
              until {formatTime(phone.paused_until)}: Android reported its SMS limit exceeded, so it is handed no
              message before then
            </Detail>
          )}
        </dl>
      </Section>

      <BatterySection phoneId={phone.id} />
      {phone.sim_verification === 'pending' && <SimCheckPanel phone={phone} />}
      <PhoneMessages phone={phone} />
      {phone.device_connected && <InboxRecovery phone={phone} />}
      <QuotaMeters phone={phone} />
      <PhoneSettings key={phone.id} phone={phone} />
      <ConnectPanel phone={phone} />
      <DevicesSection phone={phone} />
      <Section title="Remove this phone">
        <p className="mb-3 text-sm text-slate-700">
          Removing the phone signs its device out and fails the messages it has not sent, giving their credits back.
        </p>
        <Button variant="danger" onClick={() => setRemoving(true)}>
          Remove {phone.phone}
        </Button>
      </Section>
      <RemovePhoneDialog
        phone={removing ? phone : null}
        onClose={() => setRemoving(false)}
        onRemoved={() => router.push('/dashboard/phones')}
      />
    </>
  );
}

function Detail({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-slate-600">{term}</dt>
      <dd className="mt-0.5 break-words font-medium text-slate-900">{children}</dd>
    </div>
  );
}

/** "SIM verified" for the moment the check of this page's phone passes (by the loopback SMS or a typed code). */
function useSimVerifiedNotice(verification: Phone['sim_verification']): string {
  const previous = useRef(verification);
  const [notice, setNotice] = useState('');
  useEffect(() => {
    if (previous.current === 'pending' && verification === 'verified') {
      setNotice('SIM verified: this phone can send now.');
    }
    previous.current = verification;
  }, [verification]);
  return notice;
}
