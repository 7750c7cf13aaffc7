import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { envSchema } from '@/lib/config/env';

/** The names in the first column of docs/configuration.md's table. */
function namesInReadmeTable(): string[] {
  const readme = fs.readFileSync(path.resolve(import.meta.dirname, '..', 'docs', 'configuration.md'), 'utf8');
  const lines = readme.split('\n');
  const header = lines.findIndex((line) => line.startsWith('| Variable |'));
  expect(header, 'docs/configuration.md has a table headed "| Variable |"').toBeGreaterThan(-1);
  const names: string[] = [];
  for (const line of lines.slice(header + 2)) {
    if (!line.startsWith('|')) break;
    const firstCell = line.split('|')[1] ?? '';
    names.push(...[...firstCell.matchAll(/`([A-Z][A-Z0-9_]*)`/g)].map((match) => match[1] as string));
  }
  return names;
}

describe('the configuration table in docs/configuration.md', () => {
  it('names every variable of the configuration schema, and no other', () => {
    const documented = namesInReadmeTable();
    const known = Object.keys(envSchema.shape);
    expect(
      documented.filter((name) => !known.includes(name)),
      'in the table, unknown to the schema',
    ).toEqual([]);
    expect(
      known.filter((name) => !documented.includes(name)),
      'in the schema, missing from the table',
    ).toEqual([]);
    expect(new Set(documented).size, 'each variable once').toBe(documented.length);
  });
});
