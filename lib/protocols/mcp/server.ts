import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListToolsRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { Database } from '@/db';
import type { AccountPrincipal } from '@/lib/auth/principal';
import { DomainError } from '@/lib/errors';
import { validate } from '@/lib/http/parse';
import { errorResponse } from '@/lib/http/route';
import { accessFor, refusalDetail, roleMayCall, routeRule } from '@/lib/members/route-areas';
import { metrics } from '@/lib/metrics/registry';
import { takeKeyToken } from '@/lib/rate-limit/key-bucket';
import { APP_VERSION } from '@/lib/version';
import { z } from '@/lib/zod';
import { MCP_TOOL_NAMES, MCP_TOOLS, type McpTool, type McpToolName } from './tools';

/** The tools as MCP lists them: each input schema is the JSON Schema of the REST operation's zod schema. */
const TOOL_LIST: Tool[] = MCP_TOOL_NAMES.map((name) => ({
  name,
  description: `${MCP_TOOLS[name].description} (The answer of ${MCP_TOOLS[name].rest}.)`,
  inputSchema: z.toJSONSchema(MCP_TOOLS[name].input, { io: 'input', unrepresentable: 'any' }) as Tool['inputSchema'],
}));

function isToolName(name: string): name is McpToolName {
  return Object.hasOwn(MCP_TOOLS, name);
}

function problemResult(problem: { code: string; detail: string }): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(problem) }], structuredContent: problem };
}

/** A key with a role calls a tool only when it may call the tool's REST operation (403 FORBIDDEN otherwise). */
function authorizeTool(tool: McpTool, role: AccountPrincipal['role']): void {
  const rule = routeRule(tool.operationId);
  if (!role || !rule) return;
  const method = tool.rest.split(' ')[0] ?? 'POST';
  if (!roleMayCall(role, rule, method)) {
    throw new DomainError('FORBIDDEN', refusalDetail(role, rule.area, accessFor(rule, method), 'api_key'));
  }
}

async function callTool(
  db: Database,
  accountId: string,
  role: AccountPrincipal['role'],
  requestId: string,
  name: string,
  args: unknown,
): Promise<CallToolResult> {
  if (!isToolName(name)) {
    metrics.mcpCalls.inc({ tool: 'unknown', outcome: 'NOT_FOUND' });
    return problemResult({ code: 'NOT_FOUND', detail: `No tool is named ${JSON.stringify(name.slice(0, 64))}.` });
  }
  const tool = MCP_TOOLS[name];
  try {
    authorizeTool(tool, role);
    const input = validate(tool.input, args ?? {}, 'body');
    const answer = await tool.run(db, accountId, input as never);
    metrics.mcpCalls.inc({ tool: name, outcome: 'ok' });
    return {
      content: [{ type: 'text', text: JSON.stringify(answer) }],
      structuredContent: answer as Record<string, unknown>,
    };
  } catch (error) {
    // The REST operation's problem+json body: its `code`, `detail` and field `errors`.
    const problem = (await errorResponse(error, requestId).json()) as { code: string; detail: string };
    metrics.mcpCalls.inc({ tool: name, outcome: problem.code });
    return problemResult(problem);
  }
}

/** JSON-RPC messages one POST may batch; each past the first takes a token of the key's rate limit. */
export const MAX_MCP_BATCH = 10;

function checkBatch(body: unknown, rateKey: string): void {
  if (!Array.isArray(body)) return;
  if (body.length > MAX_MCP_BATCH) {
    throw new DomainError('VALIDATION_ERROR', `Batch at most ${MAX_MCP_BATCH} JSON-RPC messages in one request.`, {
      errors: [{ path: 'body', message: `more than ${MAX_MCP_BATCH} messages` }],
    });
  }
  for (let i = 1; i < body.length; i++) takeKeyToken(rateKey);
}

/**
 * Answers one MCP request (Streamable HTTP, stateless: every POST stands alone, so any instance
 * answers any request) for an account already authenticated by its API key. `body` is the JSON
 * body, read and bounded by the route wrapper.
 */
export async function answerMcp(
  req: Request,
  body: unknown,
  context: { db: Database; accountId: string; role?: AccountPrincipal['role']; requestId: string; rateKey: string },
): Promise<Response> {
  checkBatch(body, context.rateKey);
  const mcp = new McpServer({ name: 'simgate', version: APP_VERSION }, { capabilities: { tools: {} } });
  mcp.server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: TOOL_LIST }));
  mcp.server.setRequestHandler(CallToolRequestSchema, (request) =>
    callTool(
      context.db,
      context.accountId,
      context.role,
      context.requestId,
      request.params.name,
      request.params.arguments,
    ),
  );
  const transport = new WebStandardStreamableHTTPServerTransport({ enableJsonResponse: true });
  await mcp.connect(transport);
  try {
    return await transport.handleRequest(req, { parsedBody: body });
  } finally {
    await mcp.close();
  }
}
