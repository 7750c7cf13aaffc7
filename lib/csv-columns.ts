/**
 * Which column of a CSV header holds phone numbers: the first whose header says so, else the first
 * column. The one rule of every CSV the product reads (bulk compose's recipients, the contact import).
 */
export function guessNumberColumn(header: readonly string[]): number {
  const index = header.findIndex((cell) => /phone|number|mobile|msisdn|^to$/i.test(cell.trim()));
  return index === -1 ? 0 : index;
}
