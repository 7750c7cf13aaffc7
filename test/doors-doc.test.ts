import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EMAIL_REPLY_WINDOW_DAYS, EMAIL_SMS_MAX_LENGTH, MAX_EMAIL_SMS_RECIPIENTS } from '@/lib/email-to-sms/schemas';
import { simgateMetricNames } from '@/lib/metrics/registry';
import { AUTH_FAILURES_ALLOWED, MAX_MAIL_BYTES } from '@/lib/protocols/email/server';
import { MAX_MCP_BATCH } from '@/lib/protocols/mcp/server';
import { MCP_TOOL_NAMES } from '@/lib/protocols/mcp/tools';

const docs = (name: string) => fs.readFileSync(path.resolve(import.meta.dirname, '..', 'docs', name), 'utf8');

/** The section of docs/doors.md under a `## ` heading. */
function section(heading: string): string {
  const text = docs('doors.md');
  const start = text.indexOf(`## ${heading}`);
  expect(start, `docs/doors.md has "## ${heading}"`).toBeGreaterThan(-1);
  const end = text.indexOf('\n## ', start + 1);
  return text.slice(start, end < 0 ? undefined : end);
}

describe('docs/doors.md', () => {
  it('states each door’s limits as the code has them', () => {
    const mcp = section('MCP server');
    expect(mcp).toContain(`at most ${MAX_MCP_BATCH} JSON-RPC messages`);
    for (const tool of MCP_TOOL_NAMES) expect(mcp).toContain(`\`${tool}\``);

    const email = section('Email to SMS');
    expect(email).toContain(`${MAX_EMAIL_SMS_RECIPIENTS} recipients in one mail`);
    expect(email).toContain(`${EMAIL_SMS_MAX_LENGTH.toLocaleString('en-US')} characters`);
    expect(email).toContain(`${MAX_MAIL_BYTES / 1024 / 1024} MiB`);
    expect(email).toContain(`${AUTH_FAILURES_ALLOWED} failed logins`);
    expect(email).toContain(`within the last ${EMAIL_REPLY_WINDOW_DAYS} days`);
  });

  it('names each door’s metrics, and docs/operating.md lists every metric', () => {
    expect(section('MCP server')).toContain('simgate_mcp_calls_total');
    expect(section('Email to SMS')).toContain('simgate_email_messages_total');
    expect(section('SMPP 3.4 server')).toContain('simgate_smpp_binds');
    expect(section('SMPP 3.4 server')).toContain('simgate_smpp_pdus_total');
    const operating = docs('operating.md');
    expect(simgateMetricNames().filter((name) => !operating.includes(`\`${name}\``))).toEqual([]);
  });
});
