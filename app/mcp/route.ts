import { config } from '@/lib/config';
import { notFound } from '@/lib/errors';
import { route } from '@/lib/http/route';
import { answerMcp } from '@/lib/protocols/mcp/server';
import { z } from '@/lib/zod';

/**
 * The MCP server for AI agents (Streamable HTTP, stateless JSON answers): an account API key as
 * `Authorization: Bearer`, tools over the REST operations (lib/protocols/mcp/tools.ts, docs/doors.md).
 * No GET stream and no sessions: every request stands alone, on any instance.
 */
export const POST = route({ auth: 'account', body: z.unknown() }, async ({ req, db, principal, body, requestId }) => {
  // Off unless the operator turns it on (MCP_ENABLED), as every door is.
  if (!config.mcpEnabled) throw notFound('MCP server');
  return answerMcp(req, body, {
    db,
    accountId: principal.accountId,
    role: principal.role,
    requestId,
    rateKey: principal.keyId ?? principal.accountId,
  });
});
