import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS_FOLDER } from '@/db/client';
import { migrationStatements, withoutComments } from '@/db/migration-folder';
import { ONLINE_MARK } from '@/db/migrator';
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

/** A migration file's statements: each as written, without its comments, and in one short line. */
function statementsOf(text: string): Array<{ statement: string; code: string; summary: string }> {
  return migrationStatements(text).map((statement) => {
    const code = withoutComments(statement);
    return { statement, code, summary: code.trim().replace(/\s+/g, ' ').slice(0, 120) };
  });
}

/** The destructive statements of one migration file that lack a valid justification. */
function unjustified(tag: string, text: string, earlierTags: string[]): string[] {
  const problems: string[] = [];
  for (const { statement, code, summary } of statementsOf(text)) {
    const destructive = DESTRUCTIVE.exec(code);
    if (!destructive) continue;
    const named = JUSTIFIED.exec(statement)?.[1];
    if (!named) {
      problems.push(`${tag}: "${summary}" ${destructive[1]!.toUpperCase()} without "-- unread since <migration>"`);
    } else if (!earlierTags.includes(named)) {
      problems.push(`${tag}: "${summary}" names ${named}, which is not an earlier migration`);
    }
  }
  return problems;
}

/**
 * Migrations stop no sends (issue 50): on a table a migration does not create itself, no statement may
 * take a lock that holds writes up for longer than a moment on ten million rows. An index is built
 * `CONCURRENTLY` (in an online migration: db/migrator.ts), a foreign key or check is added `NOT VALID`
 * and validated by a later statement, a column's type is not changed in place, `SET NOT NULL` waits
 * for a validated check, an index is dropped `CONCURRENTLY`, and rows are not backfilled in the migration. A statement on a small table may say why it may wait: `-- brief: <why>`.
 * Checked from this migration on; the ones before it were applied before the rule.
 */
const FIRST_LOCK_CHECKED = '0050_messages_word_search';
const BRIEF = /--\s*brief:\s*\S/i;
const CREATED = /\bCREATE\s+TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?"?(\w+)"?/gi;
const LOCK_RULES: Array<{ pattern: RegExp; table: RegExp; problem: string }> = [
  {
    pattern: /\bCREATE\s+(?:UNIQUE\s+)?INDEX\s+(?!CONCURRENTLY\b)/i,
    table: /\bON\s+(?:ONLY\s+)?"?(\w+)"?/i,
    problem: 'builds an index without CONCURRENTLY',
  },
  {
    pattern: /\bADD\s+CONSTRAINT\s+"?\w+"?\s+(?:FOREIGN\s+KEY|CHECK)\b(?![\s\S]*\bNOT\s+VALID\b)/i,
    table: /\bALTER\s+TABLE\s+(?:ONLY\s+)?"?(\w+)"?/i,
    problem: 'adds a foreign key or check without NOT VALID',
  },
  {
    pattern: /\bADD\s+CONSTRAINT\s+"?\w+"?\s+(?:UNIQUE|PRIMARY\s+KEY)\b(?![\s\S]*\bUSING\s+INDEX\b)/i,
    table: /\bALTER\s+TABLE\s+(?:ONLY\s+)?"?(\w+)"?/i,
    problem: 'adds a unique key without USING INDEX (of an index built CONCURRENTLY)',
  },
  {
    pattern: /\bALTER\s+COLUMN\s+"?\w+"?\s+(?:SET\s+DATA\s+)?TYPE\b/i,
    table: /\bALTER\s+TABLE\s+(?:ONLY\s+)?"?(\w+)"?/i,
    problem: "changes a column's type in place",
  },
  {
    pattern: /^\s*(?:UPDATE|DELETE\s+FROM)\s/i,
    table: /^\s*(?:UPDATE|DELETE\s+FROM)\s+(?:ONLY\s+)?"?(\w+)"?/i,
    problem: 'rewrites rows in the migration (a backfill goes in batches, from a command, once the release runs)',
  },
  {
    // DROP INDEX names no table: whatever index it drops, its table is locked.
    pattern: /\bDROP\s+INDEX\s+(?!CONCURRENTLY\b)/i,
    table: /(?!)/,
    problem: 'drops an index without CONCURRENTLY (ACCESS EXCLUSIVE on its table)',
  },
  {
    pattern: /\bSET\s+NOT\s+NULL\b/i,
    table: /\bALTER\s+TABLE\s+(?:ONLY\s+)?"?(\w+)"?/i,
    problem: 'sets NOT NULL (a scan of the table under its strongest lock)',
  },
];

/** The statements of one migration file that would hold writes to an existing table up. */
function blocking(tag: string, text: string): string[] {
  const online = text.trimStart().startsWith(ONLINE_MARK);
  const created = new Set([...text.matchAll(CREATED)].map((match) => match[1]!.toLowerCase()));
  const problems: string[] = [];
  for (const { statement, code, summary } of statementsOf(text)) {
    if (/\bCONCURRENTLY\b/i.test(code) && !online) {
      problems.push(`${tag}: "${summary}" runs CONCURRENTLY in a migration without "-- online" on its first line`);
    }
    if (BRIEF.test(statement)) continue;
    for (const rule of LOCK_RULES) {
      if (!rule.pattern.test(code)) continue;
      const table = rule.table.exec(code)?.[1]?.toLowerCase();
      if (table && created.has(table)) continue;
      problems.push(`${tag}: "${summary}" ${rule.problem}`);
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

  it('hold no writes up on a table they did not create (from 0050 on)', () => {
    const first = entries.findIndex((entry) => entry.tag === FIRST_LOCK_CHECKED);
    expect(first).toBeGreaterThan(0);
    const problems = entries
      .slice(first)
      .flatMap((entry) =>
        blocking(entry.tag, fs.readFileSync(path.join(MIGRATIONS_FOLDER, `${entry.tag}.sql`), 'utf8')),
      );
    expect(problems).toEqual([]);
  });

  it('the lock check refuses what would hold writes up and accepts the online forms', () => {
    const refused = [
      'CREATE INDEX "i" ON "messages" ("a");',
      'CREATE UNIQUE INDEX "i" ON "messages" USING btree ("a");',
      'ALTER TABLE "messages" ADD CONSTRAINT "f" FOREIGN KEY ("a") REFERENCES "accounts"("id");',
      'ALTER TABLE "messages" ADD CONSTRAINT "c" CHECK ("a" > 0);',
      'ALTER TABLE "messages" ADD CONSTRAINT "u" UNIQUE ("a");',
      'ALTER TABLE "messages" ALTER COLUMN "a" SET DATA TYPE bigint;',
      'ALTER TABLE "messages" ALTER COLUMN "a" TYPE bigint;',
      'ALTER TABLE "messages" ALTER COLUMN "a" SET NOT NULL;',
      'UPDATE "messages" SET "b" = true;',
      'DELETE FROM "messages" WHERE "b";',
      'DROP INDEX "i";',
      'DROP INDEX IF EXISTS "i";',
    ];
    for (const statement of refused) expect(blocking('0099_x', statement), statement).toHaveLength(1);
    expect(blocking('0099_x', 'CREATE INDEX CONCURRENTLY IF NOT EXISTS "i" ON "messages" ("a");')[0]).toMatch(
      /without "-- online"/,
    );
    const accepted = [
      '-- online: why\nCREATE INDEX CONCURRENTLY IF NOT EXISTS "i" ON "messages" ("a");',
      '-- online: why\nDROP INDEX CONCURRENTLY IF EXISTS "i";',
      'ALTER TABLE "messages" ADD CONSTRAINT "f" FOREIGN KEY ("a") REFERENCES "accounts"("id") NOT VALID;',
      'ALTER TABLE "messages" VALIDATE CONSTRAINT "f";',
      'ALTER TABLE "messages" ADD CONSTRAINT "u" UNIQUE USING INDEX "i";',
      'ALTER TABLE "messages" ADD COLUMN "b" boolean DEFAULT false NOT NULL;',
      'CREATE TABLE "t" ("a" int NOT NULL);--> statement-breakpoint\nCREATE INDEX "t_a" ON "t" ("a");--> statement-breakpoint\nALTER TABLE "t" ADD CONSTRAINT "f" FOREIGN KEY ("a") REFERENCES "x"("id");',
      '-- brief: a handful of rows, one per instance\nCREATE INDEX "i" ON "instances" ("a");',
    ];
    for (const text of accepted) expect(blocking('0099_x', text), text).toEqual([]);
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
