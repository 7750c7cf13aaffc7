import type { Database } from '@/db';
import { getBalances, getGroupBalance } from '@/lib/credits/balance';
import { balanceQuery } from '@/lib/credits/schemas';
import { cancelMessage } from '@/lib/messages/cancel';
import { getConversation, listConversations } from '@/lib/messages/conversations';
import { getMessage, listMessages } from '@/lib/messages/list';
import { submitMessage } from '@/lib/messages/pipeline';
import { conversationParams, messageIdParams, messageListQuery, sendMessageFields } from '@/lib/messages/schemas';
import { pageQuery } from '@/lib/pagination';
import { listPhones } from '@/lib/phones/read';
import { phoneListQuery } from '@/lib/phones/schemas';
import { z } from '@/lib/zod';

/**
 * One MCP tool: its arguments are the REST operation's own zod schema (or fields picked from it),
 * and its result is what that operation answers, from the same lib/ function.
 */
export type McpTool = {
  description: string;
  input: z.ZodObject;
  /** The REST operation whose answer the result is (docs/doors.md lists them). */
  rest: string;
  /** Its operationId: a key with a role may call the tool when it may call that operation (lib/members/route-areas.ts). */
  operationId: string;
  run: (db: Database, accountId: string, args: never) => Promise<unknown>;
};

function tool<S extends z.ZodObject>(
  input: S,
  rest: string,
  operationId: string,
  description: string,
  run: (db: Database, accountId: string, args: z.output<S>) => Promise<unknown>,
): McpTool {
  return { description, input, rest, operationId, run: run as McpTool['run'] };
}

const send = sendMessageFields;
const sendSmsInput = z.strictObject({
  to: send.to,
  content: send.content.unwrap(),
  from: send.from,
  from_group: send.from_group,
  send_at: send.send_at,
  request_id: send.request_id,
});

export const MCP_TOOLS = {
  send_sms: tool(
    sendSmsInput,
    'POST /api/v1/messages',
    'sendMessage',
    'Send one SMS to `to` (E.164) from one phone of the account (`from`) or through a group (`from_group`, e.g. the default group from get_balance): exactly one of them. `send_at` schedules it; `request_id` makes a retry safe. Costs one credit per message. Answers the queued message.',
    (db, accountId, args) =>
      submitMessage(db, accountId, {
        to: args.to,
        content: args.content,
        from: args.from,
        fromGroup: args.from_group,
        sendAt: args.send_at,
        requestId: args.request_id,
        origin: 'mcp',
      }),
  ),
  list_messages: tool(
    messageListQuery,
    'GET /api/v1/messages',
    'listMessages',
    'List the account’s messages, newest first: `status`, `direction`, `phone`, `q` (text or number search) and the creation range narrow it; `next_cursor` pages on.',
    (db, accountId, args) => listMessages(db, accountId, args),
  ),
  get_message: tool(
    messageIdParams,
    'GET /api/v1/messages/{id}',
    'getMessage',
    'Read one message with every state it has been in (queued, dispatched, sent, delivered, failed, …).',
    (db, accountId, args) => getMessage(db, accountId, args.id),
  ),
  cancel_message: tool(
    messageIdParams,
    'POST /api/v1/messages/{id}/cancel',
    'cancelMessage',
    'Cancel a message not sent yet: a queued one becomes `cancelled` (refunded), one a phone holds `cancelling`.',
    (db, accountId, args) => cancelMessage(db, accountId, args.id),
  ),
  list_conversations: tool(
    pageQuery,
    'GET /api/v1/conversations',
    'listConversations',
    'The numbers the account has exchanged SMS with, the most recently active first, each with its newest message.',
    (db, accountId, args) => listConversations(db, accountId, args),
  ),
  get_conversation: tool(
    z.object({ ...conversationParams.shape, ...pageQuery.shape }),
    'GET /api/v1/conversations/{number}',
    'getConversation',
    'Every message exchanged with one number (E.164), both directions, newest first: read replies here.',
    (db, accountId, args) => getConversation(db, accountId, args.number, args),
  ),
  list_phones: tool(
    phoneListQuery,
    'GET /api/v1/phones',
    'listPhones',
    'The account’s phones: number, group, status (online, offline), battery and what each can send.',
    (db, accountId, args) => listPhones(db, accountId, args),
  ),
  get_balance: tool(
    balanceQuery,
    'GET /api/v1/credits/balance',
    'getCreditBalances',
    'Credit balances: every group’s (one credit sends one message from it) and the total; with `group_id`, that group’s alone.',
    (db, accountId, args) =>
      args.group_id === undefined ? getBalances(db, accountId) : getGroupBalance(db, accountId, args.group_id),
  ),
} satisfies Record<string, McpTool>;

export type McpToolName = keyof typeof MCP_TOOLS;
export const MCP_TOOL_NAMES = Object.keys(MCP_TOOLS) as McpToolName[];
