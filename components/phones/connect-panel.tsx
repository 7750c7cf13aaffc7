'use client';

import { useMutation } from '@tanstack/react-query';
import { type ReactNode, useEffect, useState } from 'react';
import type { Phone } from '@/components/wire';
import { api } from '../api';
import { Button } from '../ui/button';
import { Section } from '../ui/section';
import { ErrorState } from '../ui/states';
import { CopyButton } from './copy-button';
import { type Device, deviceLabel, LIVE_INTERVAL_MS, type PairingCode, usePhone, usePhoneDevices } from './queries';

const RELEASES_URL = 'https://github.com/capcom6/android-sms-gateway/releases';

/** A code on screen, with the devices that existed when it was issued (a new one means the app signed in). */
type ShownCode = PairingCode & { deadline: number; knownDeviceIds: string[] };

/** Whole seconds until `deadline`, ticking once a second; null when there is no deadline. */
function useSecondsLeft(deadline: number | null): number | null {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    if (deadline === null) return;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [deadline]);
  return deadline === null ? null : Math.max(0, Math.ceil((deadline - now) / 1000));
}

function minutesAndSeconds(seconds: number): string {
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

function spaced(code: string): string {
  return `${code.slice(0, 4)} ${code.slice(4)}`;
}

export function ConnectPanel({ phone }: { phone: Phone }) {
  const [shown, setShown] = useState<ShownCode | null>(null);
  const [paired, setPaired] = useState<Device | null>(null);
  const secondsLeft = useSecondsLeft(shown?.deadline ?? null);
  const expired = secondsLeft === 0;
  const waiting = shown !== null && !expired;
  // While a code can still be typed, watch for the app's registration.
  usePhone(phone.id, waiting ? LIVE_INTERVAL_MS : false);
  const devices = usePhoneDevices(phone.id, waiting ? LIVE_INTERVAL_MS : false);

  const issue = useMutation({
    mutationFn: async (): Promise<ShownCode> => {
      // Listed alongside the code: the app cannot register before the code exists.
      const [code, known] = await Promise.all([
        api<PairingCode>(`/api/v1/phones/${phone.id}/pairing-code`, { method: 'POST' }),
        api<{ data: Device[] }>(`/api/v1/phones/${phone.id}/devices`),
      ]);
      return { ...code, deadline: Date.parse(code.expires_at), knownDeviceIds: known.data.map((d) => d.id) };
    },
    onSuccess: (code) => {
      setPaired(null);
      setShown(code);
    },
  });

  useEffect(() => {
    if (!shown || !devices.data) return;
    const newcomer = devices.data.data.find((d) => !shown.knownDeviceIds.includes(d.id) && d.status !== 'revoked');
    if (newcomer) {
      setShown(null);
      setPaired(newcomer);
    }
  }, [devices.data, shown]);

  const announcement = paired
    ? `Connected: ${paired.name ?? 'the app'} signed in with the code.`
    : expired
      ? 'The pairing code expired.'
      : shown
        ? `Pairing code ${spaced(shown.code)} is ready.`
        : '';

  return (
    <Section title="Connect an Android phone">
      <p className="text-sm text-slate-700">
        Pair the free SMSGate app on the Android phone that holds this SIM, and it sends and receives for{' '}
        <strong>{phone.phone}</strong>.
      </p>
      <p className="mt-3 flex flex-wrap items-center gap-2 text-sm">
        <span className="font-medium text-slate-800">Connection:</span>
        {phone.device_connected ? (
          <span className="rounded bg-green-100 px-2 py-0.5 text-xs font-medium text-green-800">connected</span>
        ) : (
          <span className="rounded bg-slate-200 px-2 py-0.5 text-xs font-medium text-slate-700">not connected</span>
        )}
      </p>

      <ol className="mt-5 space-y-4 text-sm text-slate-800">
        <Step number={1}>
          Install <strong>SMS Gateway for Android</strong> (“SMSGate”) on the phone from its{' '}
          <a
            href={RELEASES_URL}
            className="font-medium text-slate-900 underline underline-offset-2 focus-visible:outline-2 focus-visible:outline-slate-900"
          >
            GitHub releases
          </a>
          .
        </Step>
        <Step number={2}>
          In the app, open <strong>Settings → Cloud server</strong>: choose <strong>SSE only</strong> as the
          notification channel, and set the server address
          {shown ? (
            <span className="mt-2 flex flex-wrap items-center gap-2">
              <code
                data-testid="server-url"
                className="min-w-0 break-all rounded bg-slate-100 px-2 py-1 font-mono text-sm text-slate-900"
              >
                {shown.server_url}
              </code>
              <CopyButton value={shown.server_url} what="server address" />
            </span>
          ) : (
            <span> shown here once you get a pairing code.</span>
          )}
        </Step>
        <Step number={3}>
          Back on <strong>Home</strong>, switch on <strong>Cloud server</strong>, choose{' '}
          <strong>Sign in by code</strong> and type the pairing code.
        </Step>
      </ol>

      <div className="mt-6 rounded-md border border-slate-200 bg-slate-50 p-4">
        {shown && !expired && secondsLeft !== null ? (
          <>
            <p className="text-sm font-medium text-slate-800">Pairing code</p>
            <div className="mt-1 flex flex-wrap items-center gap-3">
              <p data-testid="pairing-code" className="font-mono text-4xl font-semibold tracking-widest text-slate-900">
                {spaced(shown.code)}
              </p>
              <CopyButton value={shown.code} what="pairing code" />
            </div>
            <p className="mt-2 text-sm text-slate-700">
              Expires in <span className="font-mono tabular-nums">{minutesAndSeconds(secondsLeft)}</span>. It works
              once; a new code voids this one.
            </p>
            <p className="mt-3 flex items-center gap-2 text-sm text-slate-700">
              <span aria-hidden="true" className="size-2 shrink-0 animate-pulse rounded-full bg-amber-500" />
              Waiting for the app: this page shows the phone connected as soon as the app signs in.
            </p>
            <Button variant="secondary" className="mt-4" onClick={() => issue.mutate()} disabled={issue.isPending}>
              {issue.isPending ? 'Getting a code…' : 'Get a new code'}
            </Button>
          </>
        ) : (
          <>
            {expired && <p className="mb-3 text-sm font-medium text-slate-800">The code expired. Get a new one.</p>}
            {paired && (
              <p className="mb-3 text-sm font-medium text-green-800">
                {paired.name ?? 'The app'} ({deviceLabel(paired)}) is connected.
                {phone.sim_verification === 'pending' && ' Its SIM check has started: a code is texted to its number.'}
              </p>
            )}
            {!expired && !paired && (
              <p className="mb-3 text-sm text-slate-700">
                The code is 8 digits, works once, and expires after a few minutes.
              </p>
            )}
            <Button onClick={() => issue.mutate()} disabled={issue.isPending}>
              {issue.isPending ? 'Getting a code…' : expired || paired ? 'Get a new code' : 'Get a pairing code'}
            </Button>
          </>
        )}
        {issue.error && (
          <div className="mt-3">
            <ErrorState error={issue.error} />
          </div>
        )}
      </div>
      <p role="status" className="sr-only">
        {announcement}
      </p>
    </Section>
  );
}

function Step({ number, children }: { number: number; children: ReactNode }) {
  return (
    <li className="flex gap-3">
      <span
        aria-hidden="true"
        className="flex size-6 shrink-0 items-center justify-center rounded-full bg-slate-900 text-xs font-semibold text-white"
      >
        {number}
      </span>
      <span className="min-w-0 pt-0.5">{children}</span>
    </li>
  );
}
