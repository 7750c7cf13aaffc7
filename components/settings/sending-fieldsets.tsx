'use client';

import { usePhones } from '../lists';
import { Button } from '../ui/button';
import type { Field, SendingForm } from './use-sending-form';

const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

/** For a group: "use the account's setting" for one field. Nothing for the account itself. */
function InheritBox({ form, field }: { form: SendingForm; field: Field }) {
  const { group, inherit, setInherit } = form;
  if (!group) return null;
  return (
    <label className="flex items-center gap-2 text-sm font-normal">
      <input
        type="checkbox"
        checked={inherit[field]}
        onChange={(event) => setInherit({ ...inherit, [field]: event.target.checked })}
      />
      Use the account’s setting
    </label>
  );
}

export function SendWindowFieldset({ ids, form }: { ids: string; form: SendingForm }) {
  const { group, inherit, windowOn, setWindowOn, fieldError } = form;
  return (
    <fieldset className="flex flex-col gap-2" disabled={group && inherit.send_window}>
      <legend className="text-sm font-semibold text-slate-800">Send window (quiet hours)</legend>
      <InheritBox form={form} field="send_window" />
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={windowOn} onChange={(event) => setWindowOn(event.target.checked)} />
        Hand normal-priority messages to phones only inside these hours (high priority ignores them)
      </label>
      {windowOn && (
        <div className="flex flex-col gap-2 text-sm">
          <WindowFields ids={ids} form={form} />
          {fieldError('send_window') && <p className="text-xs text-red-700">{fieldError('send_window')}</p>}
          <p className="text-xs text-slate-500">A message’s time to live still counts from its send time.</p>
        </div>
      )}
    </fieldset>
  );
}

/** Time zone, days and hours of the send window. */
function WindowFields({ ids, form }: { ids: string; form: SendingForm }) {
  const { window, setWindow, fieldError } = form;
  return (
    <>
      <label className="flex flex-col gap-1" htmlFor={`${ids}-tz`}>
        Time zone (IANA name)
        <input
          id={`${ids}-tz`}
          className="rounded-md border border-slate-300 px-3 py-1.5"
          value={window.time_zone}
          onChange={(event) => setWindow({ ...window, time_zone: event.target.value })}
          aria-invalid={fieldError('send_window.time_zone') ? true : undefined}
        />
      </label>
      <fieldset className="flex flex-wrap gap-3">
        <legend className="sr-only">Days</legend>
        {DAYS.map((day) => (
          <label key={day} className="flex items-center gap-1">
            <input
              type="checkbox"
              checked={window.days.includes(day)}
              onChange={(event) =>
                setWindow({
                  ...window,
                  days: event.target.checked
                    ? DAYS.filter((d) => d === day || window.days.includes(d))
                    : window.days.filter((d) => d !== day),
                })
              }
            />
            {day}
          </label>
        ))}
      </fieldset>
      <div className="flex flex-wrap gap-3">
        <label className="flex items-center gap-2" htmlFor={`${ids}-start`}>
          From
          <input
            id={`${ids}-start`}
            type="time"
            className="rounded-md border border-slate-300 px-2 py-1"
            value={window.start}
            onChange={(event) => setWindow({ ...window, start: event.target.value })}
          />
        </label>
        <label className="flex items-center gap-2" htmlFor={`${ids}-end`}>
          until
          <input
            id={`${ids}-end`}
            type="time"
            className="rounded-md border border-slate-300 px-2 py-1"
            value={window.end === '24:00' ? '23:59' : window.end}
            onChange={(event) => setWindow({ ...window, end: event.target.value })}
          />
        </label>
      </div>
    </>
  );
}

export function RetryFieldset({ ids, form }: { ids: string; form: SendingForm }) {
  const { group, inherit, attempts, setAttempts, fieldError } = form;
  return (
    <fieldset className="flex flex-col gap-2" disabled={group && inherit.max_attempts}>
      <legend className="text-sm font-semibold text-slate-800">Automatic retry</legend>
      <InheritBox form={form} field="max_attempts" />
      <label className="flex items-center gap-2 text-sm" htmlFor={`${ids}-attempts`}>
        Tries per message when a failure may be fixed by retrying (no signal, radio off…)
        <input
          id={`${ids}-attempts`}
          type="number"
          min={1}
          max={5}
          className="w-16 rounded-md border border-slate-300 px-2 py-1"
          value={attempts}
          onChange={(event) => setAttempts(Number(event.target.value))}
        />
      </label>
      {fieldError('max_attempts') && <p className="text-xs text-red-700">{fieldError('max_attempts')}</p>}
    </fieldset>
  );
}

export function CountriesFieldset({ ids, form }: { ids: string; form: SendingForm }) {
  const { group, inherit, countriesOn, setCountriesOn, countries, setCountries, fieldError } = form;
  const phones = usePhones();

  // libphonenumber's metadata is loaded only when asked for: it would put the page over its 200 kB budget.
  const myCountries = async () => {
    const { parsePhoneNumberFromString } = await import('libphonenumber-js/min');
    const found = new Set<string>();
    for (const phone of phones.data ?? []) {
      const country = parsePhoneNumberFromString(phone.phone)?.country;
      if (country) found.add(country);
    }
    setCountriesOn(true);
    setCountries([...found].sort().join(', '));
  };

  return (
    <fieldset className="flex flex-col gap-2" disabled={group && inherit.allowed_countries}>
      <legend className="text-sm font-semibold text-slate-800">Destination countries</legend>
      <InheritBox form={form} field="allowed_countries" />
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={countriesOn} onChange={(event) => setCountriesOn(event.target.checked)} />
        Send only to these countries (a leaked key cannot text premium numbers abroad)
      </label>
      {countriesOn && (
        <div className="flex flex-col gap-2 text-sm">
          <label className="flex flex-col gap-1" htmlFor={`${ids}-countries`}>
            Country codes (ISO 3166-1, e.g. US, CA)
            <input
              id={`${ids}-countries`}
              className="rounded-md border border-slate-300 px-3 py-1.5"
              value={countries}
              onChange={(event) => setCountries(event.target.value)}
              aria-invalid={fieldError('allowed_countries') ? true : undefined}
            />
          </label>
          {fieldError('allowed_countries') && <p className="text-xs text-red-700">{fieldError('allowed_countries')}</p>}
        </div>
      )}
      <div>
        <Button type="button" variant="secondary" onClick={myCountries} disabled={!phones.data}>
          Only my phones’ countries
        </Button>
      </div>
    </fieldset>
  );
}

/** The account's own queue limit, smart-encoding default and inbound de-duplication (no group overrides them). */
export function AccountSendingFieldset({ ids, form }: { ids: string; form: SendingForm }) {
  const { maxQueued, setMaxQueued, smartEncoding, setSmartEncoding, dedupSeconds, setDedupSeconds, fieldError } = form;
  return (
    <fieldset className="flex flex-col gap-2">
      <legend className="text-sm font-semibold text-slate-800">Queue, encoding and inbound duplicates</legend>
      <label className="flex items-center gap-2 text-sm" htmlFor={`${ids}-max-queued`}>
        Most messages queued at once (a send past it answers 429 QUEUE_FULL)
        <input
          id={`${ids}-max-queued`}
          type="number"
          min={1}
          className="w-32 rounded-md border border-slate-300 px-2 py-1"
          value={maxQueued}
          onChange={(event) => setMaxQueued(Number(event.target.value))}
          aria-invalid={fieldError('max_queued_messages') ? true : undefined}
        />
      </label>
      {fieldError('max_queued_messages') && <p className="text-xs text-red-700">{fieldError('max_queued_messages')}</p>}
      <label className="flex items-center gap-2 text-sm">
        <input type="checkbox" checked={smartEncoding} onChange={(event) => setSmartEncoding(event.target.checked)} />
        Smart encoding by default: replace curly quotes, long dashes, odd spaces and ellipses by their GSM-7 look-alikes
      </label>
      <label className="flex items-center gap-2 text-sm" htmlFor={`${ids}-dedup`}>
        Treat the same text from the same sender to one phone within this many seconds as one SMS (0: off)
        <input
          id={`${ids}-dedup`}
          type="number"
          min={0}
          max={86400}
          className="w-24 rounded-md border border-slate-300 px-2 py-1"
          value={dedupSeconds}
          onChange={(event) => setDedupSeconds(Number(event.target.value))}
          aria-invalid={fieldError('inbound_dedup_seconds') ? true : undefined}
        />
      </label>
      {fieldError('inbound_dedup_seconds') && (
        <p className="text-xs text-red-700">{fieldError('inbound_dedup_seconds')}</p>
      )}
    </fieldset>
  );
}
