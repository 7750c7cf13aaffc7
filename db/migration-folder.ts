import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** This source tree's migrations (the app itself reads db/client.ts `MIGRATIONS_FOLDER`, under its home). */
const SOURCE_MIGRATIONS = path.join(import.meta.dirname, 'migrations');

/** A migration written into a folder for a test or the bench: its tag (the file's name without `.sql`) and text. */
export type ExtraMigration = { tag: string; text: string };

/**
 * A migration file's statements as drizzle's migrator runs them (split at drizzle-kit's
 * `--> statement-breakpoint`), each as written, its comments included.
 */
export function migrationStatements(text: string): string[] {
  return text.split('--> statement-breakpoint');
}

/** A statement's code: its `--` comments removed (none of ours has `--` inside a string). */
export function withoutComments(statement: string): string {
  return statement
    .split('\n')
    .map((line) => line.replace(/--.*$/, ''))
    .join('\n');
}

type JournalEntry = { idx: number; version: string; when: number; tag: string; breakpoints: boolean };

/**
 * A migrations folder as drizzle-kit writes one: a copy of `from` (this source tree's migrations unless
 * given; null for none) with `extra` after them, each in the journal (meta/_journal.json) in order, as
 * a release with more migrations than the database has would ship them. Written into `into`, or a new
 * temporary folder. Answers the folder. For tests and the bench: a later release, or a folder of its own.
 */
export function migrationsWith(extra: ExtraMigration[], options: { from?: string | null; into?: string } = {}): string {
  const from = options.from === undefined ? SOURCE_MIGRATIONS : options.from;
  const folder = options.into ?? fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-migrations-'));
  const journalFile = path.join(folder, 'meta', '_journal.json');
  if (from) fs.cpSync(from, folder, { recursive: true });
  else fs.mkdirSync(path.dirname(journalFile), { recursive: true });
  const journal = from
    ? (JSON.parse(fs.readFileSync(journalFile, 'utf8')) as { entries: JournalEntry[] })
    : { version: '7', dialect: 'postgresql', entries: [] as JournalEntry[] };
  const last = journal.entries.at(-1);
  extra.forEach(({ tag, text }, i) => {
    journal.entries.push({
      idx: (last?.idx ?? -1) + 1 + i,
      version: last?.version ?? '7',
      when: (last?.when ?? 1_700_000_000_000) + 1 + i,
      tag,
      breakpoints: true,
    });
    fs.writeFileSync(path.join(folder, `${tag}.sql`), text);
  });
  fs.writeFileSync(journalFile, JSON.stringify(journal, null, 2));
  return folder;
}

/** The tag after the last of this source tree's migrations, named `name` (`0054_name`). */
export function nextMigrationTag(name: string): string {
  const journal = JSON.parse(fs.readFileSync(path.join(SOURCE_MIGRATIONS, 'meta', '_journal.json'), 'utf8')) as {
    entries: JournalEntry[];
  };
  return `${String((journal.entries.at(-1)?.idx ?? -1) + 1).padStart(4, '0')}_${name}`;
}
