/** Recipients read from pasted text or a CSV file, before the API checks them. */
export type RecipientRow = { line: number; to: string; vars: Record<string, string> };

const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Numbers pasted one per line, or separated by commas, semicolons or spaces. */
export function parsePasted(text: string): RecipientRow[] {
  return text
    .split(/[\n,;]+/)
    .map((raw) => raw.trim())
    .filter(Boolean)
    .map((raw, index) => ({ line: index + 1, to: raw.replace(/[\s().-]/g, ''), vars: {} }));
}

/** A CSV header turned into a template variable name (`First name` → `first_name`), or null. */
export function variableName(header: string): string | null {
  const name = header
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return VAR_NAME.test(name) ? name : null;
}

/**
 * Rows of a parsed CSV (header first): the number from `numberColumn`, every other named column
 * as a variable. Line numbers count the header as line 1, as a spreadsheet shows them.
 */
export function rowsFromCsv(table: string[][], numberColumn: number): RecipientRow[] {
  const [header = [], ...body] = table;
  const names = header.map(variableName);
  return body
    .map((cells, index) => {
      const vars: Record<string, string> = {};
      cells.forEach((cell, column) => {
        const name = names[column];
        if (column !== numberColumn && name) vars[name] = cell;
      });
      return { line: index + 2, to: (cells[numberColumn] ?? '').trim().replace(/[\s().-]/g, ''), vars };
    })
    .filter((row) => row.to !== '' || Object.values(row.vars).some(Boolean));
}
