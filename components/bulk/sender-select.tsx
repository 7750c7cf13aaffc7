'use client';

import { useGroups, usePhones } from '../lists';
import { Loading } from '../ui/states';

/** The phones (online first) and groups a bulk can be sent from; `fallback` is the first online phone. */
export function useSenders() {
  const phones = usePhones();
  const groups = useGroups();
  const onlinePhones = [...(phones.data ?? [])].sort(
    (a, b) => Number(b.status === 'online') - Number(a.status === 'online'),
  );
  return {
    pending: phones.isPending || groups.isPending,
    onlinePhones,
    groups: groups.data ?? [],
    fallback: onlinePhones[0] ? `phone:${onlinePhones[0].phone}` : '',
  };
}

/** "Send from": one phone, or a group that spreads the bulk over its online phones. */
export function SenderSelect({
  id,
  senders,
  value,
  onChange,
}: {
  id: string;
  senders: ReturnType<typeof useSenders>;
  value: string;
  onChange: (value: string) => void;
}) {
  return (
    <label className="flex flex-col gap-1 text-sm font-medium text-slate-800" htmlFor={id}>
      Send from
      {senders.pending ? (
        <Loading />
      ) : (
        <select
          id={id}
          className="rounded-md border border-slate-300 px-2 py-1.5 font-normal"
          value={value}
          onChange={(event) => onChange(event.target.value)}
        >
          <optgroup label="One phone">
            {senders.onlinePhones.map((phone) => (
              <option key={phone.id} value={`phone:${phone.phone}`}>
                {phone.label ? `${phone.label} (${phone.phone})` : phone.phone} · {phone.status}
              </option>
            ))}
          </optgroup>
          <optgroup label="A group: spread over its online phones">
            {senders.groups.map((group) => (
              <option key={group.id} value={`group:${group.id}`}>
                {group.name} · {group.balance} credits
              </option>
            ))}
          </optgroup>
        </select>
      )}
    </label>
  );
}
