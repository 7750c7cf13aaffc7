// The query-log check (`npm test`, after Vitest): every statement the product sent during the run that
// touches an account's table filters by `account_id`, or is allowed in lib/ops/query-allowlist.ts.
// Reads the folder db/query-log.ts wrote (QUERY_LOG_DIR); exits non-zero listing what fails. With
// `--part`, the log is of a part of the suites (the Citus mode's API run): an allow-list entry none of
// its statements needed is not an error there.
import fs from 'node:fs';
import path from 'node:path';
import * as schema from '@/db/schema';
import { QUERY_ALLOWLIST } from '@/lib/ops/query-allowlist';
import { accountTablesOf, checkQueryLog, type LoggedStatement } from '@/lib/ops/query-tenancy';

const args = process.argv.slice(2);
const part = args.includes('--part');
const dir = args.find((arg) => !arg.startsWith('--')) ?? process.env.QUERY_LOG_DIR;
if (!dir || !fs.existsSync(dir)) {
  console.error('usage: tsx scripts/check-query-log.ts [--part] <QUERY_LOG_DIR of a test run>');
  process.exit(2);
}

const statements = new Map<string, LoggedStatement>();
for (const file of fs.readdirSync(dir).filter((name) => name.endsWith('.ndjson'))) {
  for (const line of fs.readFileSync(path.join(dir, file), 'utf8').split('\n')) {
    if (!line.trim()) continue;
    let statement: LoggedStatement;
    try {
      statement = JSON.parse(line) as LoggedStatement;
    } catch {
      // The last line of a process killed while writing it (a server test's SIGKILL).
      continue;
    }
    statements.set(`${statement.driver}\n${statement.origin}\n${statement.sql}`, statement);
  }
}

const accountTables = accountTablesOf(schema);
const report = checkQueryLog([...statements.values()], accountTables, QUERY_ALLOWLIST);
console.log(
  `query log: ${report.statements} statement(s) with their origin, ${accountTables.size} account tables, ` +
    `${report.allowed} allowed across accounts, ${report.offences.length} without account_id`,
);
if (report.statements === 0) {
  console.error('the query log is empty: was QUERY_LOG_DIR set for the test run?');
  process.exit(1);
}
for (const offence of report.offences) {
  console.error(
    `\n✖ ${offence.origin} (${offence.driver}): no account_id for ${offence.tables.join(', ')}\n  ${offence.sql}`,
  );
}
for (const allowance of part ? [] : report.unused) {
  const what = [
    allowance.origin && `origin ${allowance.origin}`,
    allowance.statement && `statement ${allowance.statement}`,
  ]
    .filter(Boolean)
    .join(', ');
  console.error(`\n✖ allow-list entry no statement needed (${what}): ${allowance.reason}`);
}
process.exit(report.offences.length > 0 || (!part && report.unused.length > 0) ? 1 : 0);
