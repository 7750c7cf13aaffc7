import { MAX_BULK_RECIPIENTS } from '@/lib/messages/limits';

export type ParsedRecipients = {
  valid: string[];
  invalid: Array<{ row: number; value: string }>;
  duplicates: number;
  tooMany: boolean;
};

/** E.164 after spaces, dashes, dots and parentheses are dropped; the API checks the number plan itself. */
const E164 = /^\+[1-9]\d{7,14}$/;
/** A CSV header row ("phone", "number", "to"…) is not a recipient. */
const HEADER = /^[a-z_ ]+$/i;

/**
 * Recipients from pasted text or a CSV: one per line, the first column (comma or semicolon) of each.
 * Rows that are no number are listed with their line number so they can be fixed before sending.
 */
export function parseRecipients(text: string): ParsedRecipients {
  const valid: string[] = [];
  const seen = new Set<string>();
  const invalid: ParsedRecipients['invalid'] = [];
  let duplicates = 0;
  text.split(/\r?\n/).forEach((line, index) => {
    const cell = (line.split(/[,;\t]/)[0] ?? '').trim().replace(/^"|"$/g, '');
    if (!cell) return;
    if (index === 0 && HEADER.test(cell)) return;
    const number = cell.replace(/[\s\-.()]/g, '');
    if (!E164.test(number)) {
      invalid.push({ row: index + 1, value: cell });
      return;
    }
    if (seen.has(number)) {
      duplicates += 1;
      return;
    }
    seen.add(number);
    valid.push(number);
  });
  return { valid, invalid, duplicates, tooMany: valid.length > MAX_BULK_RECIPIENTS };
}
