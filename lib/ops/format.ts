import { iso } from '@/lib/wire';
import type { AccountDetails, AccountSummary } from './accounts';

type Cell = string | number | boolean | null | undefined;

/** Plain aligned columns, readable in a terminal and greppable. */
export function table(headers: string[], rows: Cell[][]): string {
  const text = rows.map((row) => row.map((cell) => (cell === null || cell === undefined ? '-' : String(cell))));
  const widths = headers.map((header, i) => Math.max(header.length, ...text.map((row) => row[i]?.length ?? 0)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  return [line(headers), ...text.map(line)].join('\n');
}

export function formatAccounts(accounts: AccountSummary[]): string {
  if (accounts.length === 0) return 'No accounts yet.';
  return table(
    ['ID', 'EMAIL', 'PLAN', 'PHONES', 'GROUPS', 'CREDITS', 'CREATED'],
    accounts.map((a) => [a.id, a.email, a.plan, a.phones, a.groups, a.credits, iso(a.createdAt)]),
  );
}

export function formatAccount(details: AccountDetails): string {
  const { account, groups, phones, devices, keys } = details;
  const total = groups.reduce((sum, group) => sum + group.balance, 0);
  return [
    `Account ${account.id}`,
    `  email: ${account.email}`,
    `  plan: ${account.plan}`,
    `  created: ${iso(account.createdAt)}`,
    `  credits: ${total}`,
    '',
    `Groups (${groups.length})`,
    table(
      ['ID', 'NAME', 'DEFAULT', 'BALANCE'],
      groups.map((g) => [g.id, g.name, g.isDefault ? 'yes' : '', g.balance]),
    ),
    '',
    `Phones (${phones.length})`,
    phones.length === 0
      ? '  none'
      : table(
          ['ID', 'PHONE', 'LABEL', 'GROUP', 'STATUS', 'BATTERY', 'DEVICE'],
          phones.map((p) => [p.id, p.phone, p.label, p.groupId, p.status, p.battery, p.deviceId]),
        ),
    '',
    `Devices (${devices.length})`,
    devices.length === 0
      ? '  none'
      : table(
          ['ID', 'NUMBER', 'STATUS', 'LABEL'],
          devices.map((d) => [d.id, d.phoneNumber, d.status, d.label]),
        ),
    '',
    `API keys (${keys.length})`,
    keys.length === 0
      ? '  none'
      : table(
          ['ID', 'NAME', 'PREFIX', 'CREATED', 'LAST USED', 'REVOKED'],
          keys.map((k) => [k.id, k.name, `${k.prefix}…`, iso(k.createdAt), iso(k.lastUsedAt), iso(k.revokedAt)]),
        ),
  ].join('\n');
}
