import { EncryptedValue } from '@/components/crypto/passphrase';
import type { Message } from '@/components/wire';

/** What stands in for a message's text once data retention removed it. */
export const PURGED_TEXT = 'Content removed (retention)';

type Shown = Pick<Message, 'content' | 'content_purged_at' | 'encrypted'>;

/** The text as a one-line label (a title attribute, a conversation's preview). */
export function messageTextLabel(message: Shown): string {
  if (message.content_purged_at) return PURGED_TEXT;
  return message.encrypted ? 'Encrypted message' : message.content;
}

/**
 * A message's text (an encrypted one decrypted with the passphrase in the page's memory), or a
 * note that retention removed it (never an empty text or a bare hash).
 */
export function MessageText({ message }: { message: Shown }) {
  if (message.content_purged_at) return <em className="text-slate-600">{PURGED_TEXT}</em>;
  if (message.encrypted) return <EncryptedValue value={message.content} kind="text" />;
  return <>{message.content}</>;
}

/** The number on the other side of a message: its recipient, or the sender of an inbound one. */
export function counterpartOf(message: Pick<Message, 'direction' | 'from' | 'to'>): string {
  return message.direction === 'outbound' ? message.to : message.from;
}

/**
 * A number of a message, decrypted when it is the counterpart of an encrypted message; the
 * counterpart's contact name goes before it when it has one.
 */
export function MessageNumber({ message, number }: { message: Message; number: string }) {
  const counterpart = number === counterpartOf(message);
  if (message.encrypted && counterpart) return <EncryptedValue value={number} kind="number" />;
  const name = counterpart ? message.contact?.name : undefined;
  if (!name) return <>{number}</>;
  return (
    <>
      <span className="font-sans font-medium" data-testid="contact-name">
        {name}
      </span>{' '}
      <span className="font-mono">{number}</span>
    </>
  );
}
