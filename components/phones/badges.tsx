import type { Phone } from '@/components/wire';

const STATUS_STYLE: Record<Phone['status'], string> = {
  online: 'bg-green-100 text-green-800',
  offline: 'bg-slate-200 text-slate-700',
  unknown: 'bg-amber-100 text-amber-800',
};

const SIM_BADGE: Record<Phone['sim_verification'], { label: string; style: string }> = {
  verified: { label: 'SIM verified', style: 'bg-green-100 text-green-800' },
  pending: { label: 'SIM check pending', style: 'bg-amber-100 text-amber-900' },
  unverified: { label: 'SIM not verified', style: 'bg-slate-200 text-slate-700' },
};

const BADGE = 'inline-block whitespace-nowrap rounded px-2 py-0.5 text-xs font-medium';

export function StatusBadge({ status }: { status: Phone['status'] }) {
  return <span className={`${BADGE} ${STATUS_STYLE[status]}`}>{status}</span>;
}

export function SimBadge({ verification }: { verification: Phone['sim_verification'] }) {
  const badge = SIM_BADGE[verification];
  return <span className={`${BADGE} ${badge.style}`}>{badge.label}</span>;
}

/** A phone whose usage has reached 90 % of one of its caps (`near_cap`). */
export function NearCapBadge() {
  return (
    <span className={`${BADGE} bg-red-100 text-red-900`} title="Its usage has reached 90 % of one of its caps">
      Near a cap
    </span>
  );
}
