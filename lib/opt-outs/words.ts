/** Whole-message words that opt a sender out of an account's messages, and back in. */
export const STOP_WORDS = ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT'] as const;
export const START_WORDS = ['START', 'UNSTOP', 'YES'] as const;

const STOP = new Set<string>(STOP_WORDS);
const START = new Set<string>(START_WORDS);

/**
 * Whether an inbound text is, as a whole, a stop or a start word: case is ignored and so is white
 * space anywhere in it (" s top " is not a word people type, but "Stop\n" and " STOP " are).
 */
export function optOutWordOf(text: string): 'stop' | 'start' | null {
  const word = text.replace(/\s+/g, '').toUpperCase();
  if (STOP.has(word)) return 'stop';
  if (START.has(word)) return 'start';
  return null;
}
