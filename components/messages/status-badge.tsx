import type { Message } from '@/components/wire';

/** One colour per message state; the Record keeps it complete when the API adds a state. */
export const MESSAGE_STATUS_STYLE: Record<Message['status'], string> = {
  queued: 'bg-slate-200 text-slate-800',
  dispatched: 'bg-sky-100 text-sky-900',
  cancelling: 'bg-orange-100 text-orange-900',
  sent: 'bg-indigo-100 text-indigo-900',
  delivered: 'bg-green-100 text-green-900',
  failed: 'bg-red-100 text-red-900',
  expired: 'bg-amber-100 text-amber-900',
  cancelled: 'bg-slate-300 text-slate-900',
  received: 'bg-teal-100 text-teal-900',
};

export const MESSAGE_STATUSES = Object.keys(MESSAGE_STATUS_STYLE) as Array<Message['status']>;

export function MessageStatusBadge({ status }: { status: Message['status'] }) {
  return (
    <span
      className={`inline-block whitespace-nowrap rounded px-2 py-0.5 text-xs font-medium ${MESSAGE_STATUS_STYLE[status]}`}
    >
      {status}
    </span>
  );
}
