'use client';

import { useMutation, useQuery } from '@tanstack/react-query';
import { type FormEvent, useState } from 'react';
import type {
  RecoveryCodes,
  SecuritySettings,
  TwoFactorEnrolment,
  TwoFactorStatus,
} from '@/lib/members/two-factor-schemas';
import { ApiProblem, api } from '../api';
import { queryKeys } from '../query-keys';
import { Button } from '../ui/button';
import { ConfirmDialog } from '../ui/confirm';
import { Field } from '../ui/field';
import { Section } from '../ui/section';
import { ErrorState, Loading } from '../ui/states';
import { useRefresh } from '../use-refresh';

/** The API's reason for a refused code, shown beside the field. */
function codeError(error: unknown): string | undefined {
  if (!(error instanceof ApiProblem)) return undefined;
  return error.errors[0]?.message ?? error.message;
}

/**
 * Settings → Security: the signed-in member's authenticator app (add with its QR code or secret,
 * confirm with a code, recovery codes shown once, turn off). `onEnabled` runs once the recovery codes
 * are put away (the dashboard reloads where enrolment was required).
 */
export function TwoFactorPanel({ onEnabled }: { onEnabled?: () => void }) {
  const status = useQuery({
    queryKey: queryKeys.twoFactor.root,
    queryFn: () => api<TwoFactorStatus>('/api/v1/auth/two-factor'),
  });
  const [recoveryCodes, setRecoveryCodes] = useState<string[] | null>(null);
  const refresh = useRefresh();

  return (
    <Section title="Two-factor sign-in">
      {recoveryCodes ? (
        <RecoveryCodesOnce
          codes={recoveryCodes}
          onDone={async () => {
            setRecoveryCodes(null);
            await refresh('twoFactor');
            onEnabled?.();
          }}
        />
      ) : status.isPending ? (
        <Loading label="Loading two-factor sign-in…" rows={2} />
      ) : status.error ? (
        <ErrorState error={status.error} onRetry={() => status.refetch()} />
      ) : status.data.enabled ? (
        <TurnOff status={status.data} />
      ) : (
        <Enrol onConfirmed={setRecoveryCodes} />
      )}
    </Section>
  );
}

function Enrol({ onConfirmed }: { onConfirmed: (codes: string[]) => void }) {
  const [code, setCode] = useState('');
  const start = useMutation({
    mutationFn: () => api<TwoFactorEnrolment>('/api/v1/auth/two-factor/enrol', { method: 'POST' }),
  });
  const confirm = useMutation({
    mutationFn: () => api<RecoveryCodes>('/api/v1/auth/two-factor/confirm', { body: { code } }),
    meta: { success: 'Two-factor sign-in is on.' },
    onSuccess: (answer) => onConfirmed(answer.recovery_codes),
  });

  if (!start.data) {
    return (
      <div className="flex flex-col gap-3">
        <p className="max-w-prose text-sm text-slate-700">
          After the emailed code, sign-in asks for a code of an authenticator app (any app that reads TOTP QR codes).
          Ten recovery codes stand in for the app if you lose it.
        </p>
        <div>
          <Button disabled={start.isPending} onClick={() => start.mutate()}>
            Add an authenticator app
          </Button>
        </div>
      </div>
    );
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    confirm.mutate();
  }

  return (
    <form onSubmit={submit} className="flex flex-col gap-4">
      <p className="max-w-prose text-sm text-slate-700">
        Scan the QR code with the app, or type the secret into it. Then enter the 6-digit code it shows.
      </p>
      <div className="flex flex-wrap items-start gap-6">
        {/* biome-ignore lint/performance/noImgElement: a data URL made by the API, not an asset to optimise */}
        <img
          src={start.data.qr_data_url}
          alt="QR code of the authenticator secret"
          width={200}
          height={200}
          className="rounded border border-slate-200"
        />
        <div className="flex min-w-0 flex-col gap-1">
          <p className="text-sm font-medium text-slate-800">Secret</p>
          <code data-testid="totp-secret" className="break-all rounded bg-slate-100 px-2 py-1 text-sm">
            {start.data.secret}
          </code>
        </div>
      </div>
      <Field
        id="two-factor-confirm-code"
        label="Code from the app"
        inputMode="numeric"
        autoComplete="one-time-code"
        pattern="\d{6}"
        maxLength={6}
        required
        value={code}
        onChange={(event) => setCode(event.target.value.replace(/\D/g, ''))}
        error={codeError(confirm.error)}
      />
      <div className="flex flex-wrap gap-2">
        <Button type="submit" disabled={confirm.isPending || code.length !== 6}>
          Turn on
        </Button>
        <Button variant="secondary" disabled={start.isPending} onClick={() => start.mutate()}>
          New secret
        </Button>
      </div>
    </form>
  );
}

function RecoveryCodesOnce({ codes, onDone }: { codes: string[]; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div role="status" className="rounded-md border border-amber-300 bg-amber-50 p-4">
      <p className="text-sm font-medium text-amber-900">Recovery codes</p>
      <p className="mt-1 text-xs text-amber-800">
        Each opens one sign-in in place of the app. Keep them somewhere safe: they will not be shown again.
      </p>
      <ol data-testid="recovery-codes" className="mt-3 grid grid-cols-2 gap-x-6 gap-y-1 font-mono text-sm sm:w-max">
        {codes.map((one) => (
          <li key={one}>{one}</li>
        ))}
      </ol>
      <div className="mt-3 flex flex-wrap gap-2">
        <Button
          variant="secondary"
          onClick={async () => {
            await navigator.clipboard?.writeText(codes.join('\n')).catch(() => {});
            setCopied(true);
          }}
        >
          {copied ? 'Copied' : 'Copy the codes'}
        </Button>
        <Button onClick={onDone}>I have saved them</Button>
      </div>
    </div>
  );
}

function TurnOff({ status }: { status: TwoFactorStatus }) {
  const refresh = useRefresh();
  const [code, setCode] = useState('');
  const off = useMutation({
    mutationFn: () => api<void>('/api/v1/auth/two-factor', { method: 'DELETE', body: { code } }),
    meta: { success: 'Two-factor sign-in is off.' },
    onSuccess: () => {
      setCode('');
      return refresh('twoFactor');
    },
  });
  return (
    <div className="flex flex-col gap-4">
      <p className="text-sm text-slate-700">
        <strong data-testid="two-factor-state">Two-factor sign-in is on.</strong> {status.recovery_codes_left} of 10
        recovery codes left.
      </p>
      {status.required ? (
        <p className="text-sm text-slate-600">This account requires two-factor sign-in: it cannot be turned off.</p>
      ) : (
        <form
          className="flex flex-col gap-3"
          onSubmit={(event) => {
            event.preventDefault();
            off.mutate();
          }}
        >
          <Field
            id="two-factor-off-code"
            label="Code from the app, or a recovery code"
            autoComplete="one-time-code"
            required
            value={code}
            onChange={(event) => setCode(event.target.value)}
            error={codeError(off.error)}
          />
          <div>
            <Button type="submit" variant="danger" disabled={off.isPending || code.trim().length < 6}>
              Turn off
            </Button>
          </div>
        </form>
      )}
    </div>
  );
}

/** The owner's switch: every member must sign in with a second factor. */
export function RequireTwoFactorPanel({ owner }: { owner: boolean }) {
  const refresh = useRefresh();
  const settings = useQuery({
    queryKey: queryKeys.securitySettings.root,
    queryFn: () => api<SecuritySettings>('/api/v1/settings/security'),
  });
  const [confirming, setConfirming] = useState(false);
  const change = useMutation({
    mutationFn: (require_two_factor: boolean) =>
      api<SecuritySettings>('/api/v1/settings/security', { method: 'PATCH', body: { require_two_factor } }),
    meta: { quiet: true },
    onSuccess: async () => {
      setConfirming(false);
      await refresh('securitySettings', 'twoFactor');
    },
  });
  const required = settings.data?.require_two_factor ?? false;

  return (
    <Section title="Every member">
      {settings.isPending ? (
        <Loading label="Loading the security settings…" rows={1} />
      ) : settings.error ? (
        <ErrorState error={settings.error} onRetry={() => settings.refetch()} />
      ) : (
        <div className="flex flex-col gap-3">
          <p className="max-w-prose text-sm text-slate-700">
            <strong data-testid="require-two-factor-state">
              {required ? 'Two-factor sign-in is required.' : 'Two-factor sign-in is optional.'}
            </strong>{' '}
            When it is required, a member without it sees only the enrolment after signing in, and the API refuses their
            session until it is on. API keys are not affected.
          </p>
          {owner ? (
            <div>
              <Button variant={required ? 'secondary' : 'primary'} onClick={() => setConfirming(true)}>
                {required ? 'Stop requiring two-factor sign-in' : 'Require two-factor sign-in for every member'}
              </Button>
            </div>
          ) : (
            <p className="text-sm text-slate-600">Only an owner can change this.</p>
          )}
          {!confirming && change.error && <ErrorState error={change.error} />}
        </div>
      )}
      <ConfirmDialog
        open={confirming}
        title={required ? 'Stop requiring two-factor sign-in?' : 'Require two-factor sign-in?'}
        confirmLabel={required ? 'Stop requiring it' : 'Require it'}
        pending={change.isPending}
        onConfirm={() => change.mutate(!required)}
        onCancel={() => {
          setConfirming(false);
          change.reset();
        }}
      >
        {required
          ? 'Members may then turn their own two-factor sign-in off.'
          : 'Every member without an authenticator app will have to add one before they can use the dashboard.'}
        {change.error && <ErrorState error={change.error} />}
      </ConfirmDialog>
    </Section>
  );
}
