import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER } from '@/db/client';
import { journal } from '@/db/schema-version';

/**
 * Migrations stay backward compatible for one release, so that the instances of the previous
 * release go on serving beside the new ones during a rolling upgrade (README.md, "Upgrading"). A
 * statement that drops a table or a column, or renames anything, breaks the previous release's
 * queries unless nothing there reads it any more: it must say so, with a comment naming the earlier
 * migration after which no code reads what it removes:
 *
 *   -- unread since 0019_pairing_audit_sim_check_sender
 *   ALTER TABLE "phones" DROP COLUMN "legacy_flag";
 */
const DESTRUCTIVE = /\b(DROP\s+COLUMN|DROP\s+TABLE|RENAME)\b/i;
const JUSTIFIED = /--\s*unread since (\d{4}_[a-z0-9_]+)/i;

/** Migrations committed before this rule, allowed as they are (file name: why). None so far. */
const ALLOWED: Record<string, string> = {};

/** The destructive statements of one migration file that lack a valid justification. */
function unjustified(tag: string, text: string, earlierTags: string[]): string[] {
  const problems: string[] = [];
  for (const statement of text.split('--> statement-breakpoint')) {
    const code = statement
      .split('\n')
      .map((line) => line.replace(/--.*$/, ''))
      .join('\n');
    const destructive = DESTRUCTIVE.exec(code);
    if (!destructive) continue;
    const named = JUSTIFIED.exec(statement)?.[1];
    const summary = code.trim().replace(/\s+/g, ' ').slice(0, 120);
    if (!named) {
      problems.push(`${tag}: "${summary}" ${destructive[1]!.toUpperCase()} without "-- unread since <migration>"`);
    } else if (!earlierTags.includes(named)) {
      problems.push(`${tag}: "${summary}" names ${named}, which is not an earlier migration`);
    }
  }
  return problems;
}

describe('migration files', () => {
  const entries = journal(MIGRATIONS_FOLDER);

  it('drop or rename only with a comment naming the migration after which nothing reads it', () => {
    const problems = entries.flatMap((entry, index) => {
      if (ALLOWED[entry.tag]) return [];
      const text = fs.readFileSync(path.join(MIGRATIONS_FOLDER, `${entry.tag}.sql`), 'utf8');
      return unjustified(
        entry.tag,
        text,
        entries.slice(0, index).map((earlier) => earlier.tag),
      );
    });
    expect(problems).toEqual([]);
  });

  it('every file in the folder is in the journal, and the other way round', () => {
    const files = fs
      .readdirSync(MIGRATIONS_FOLDER)
      .filter((name) => name.endsWith('.sql'))
      .map((name) => name.replace(/\.sql$/, ''))
      .sort();
    expect(files).toEqual(entries.map((entry) => entry.tag).sort());
  });

  it('the check refuses what it should and accepts a justified statement', () => {
    const earlier = ['0001_a', '0002_b'];
    expect(unjustified('0003_c', 'ALTER TABLE "x" DROP COLUMN "y";', earlier)).toHaveLength(1);
    expect(unjustified('0003_c', 'DROP TABLE "x";', earlier)).toHaveLength(1);
    expect(unjustified('0003_c', 'ALTER TABLE "x" RENAME COLUMN "a" TO "b";', earlier)).toHaveLength(1);
    expect(unjustified('0003_c', '-- unread since 0009_later\nDROP TABLE "x";', earlier)[0]).toMatch(
      /not an earlier migration/,
    );
    expect(unjustified('0003_c', '-- unread since 0002_b\nALTER TABLE "x" DROP COLUMN "y";', earlier)).toEqual([]);
    expect(
      unjustified('0003_c', 'ALTER TABLE "x" DROP CONSTRAINT "c";--> statement-breakpoint\nDROP INDEX "i";', earlier),
    ).toEqual([]);
  });
});
