import type { Message } from '@/components/wire';

/** What stands in for a message's text once data retention removed it. */
export const PURGED_TEXT = 'Content removed (retention)';

/** The text as a one-line label (a title attribute, a conversation's preview). */
export function messageTextLabel(message: Pick<Message, 'content' | 'content_purged_at'>): string {
  return message.content_purged_at ? PURGED_TEXT : message.content;
}

/** A message's text, or a note that retention removed it (never an empty text or a bare hash). */
export function MessageText({ message }: { message: Pick<Message, 'content' | 'content_purged_at'> }) {
  if (!message.content_purged_at) return <>{message.content}</>;
  return <em className="text-slate-600">{PURGED_TEXT}</em>;
}
