import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { defineRoute, pageOf } from '@/lib/openapi/define';
import {
  bulkCreatedSchema,
  bulkIdParams,
  bulkSchema,
  claimAnswerSchema,
  claimBody,
  claimQuery,
  messageIdParams,
  messageListQuery,
  messageSchema,
  receivedBody,
  sendBulkBody,
  sendMessageBody,
  statusReportBody,
} from './schemas';

const STATES =
  'Delivery states: `queued` → `dispatched` (claimed by the phone) → `sent` (handed to the carrier) → ' +
  '`delivered` | `failed`; `queued`/`dispatched` → `expired` after the TTL; `queued`/`dispatched`/`sent` → ' +
  '`failed`. `delivered`, `failed` and `expired` are final; a failed or expired message is refunded. ' +
  'Inbound messages are `received`.';

export function registerMessagesRoutes(registry: OpenAPIRegistry): void {
  registerAccountRoutes(registry);
  registerDeviceRoutes(registry);
}

function registerAccountRoutes(registry: OpenAPIRegistry): void {
  const tags = ['Messages'];
  defineRoute(registry, {
    method: 'post',
    path: '/api/v1/messages',
    summary: 'Send a message',
    description:
      'Queues one SMS for the sender phone and charges one credit from its group. Checks run in this order: ' +
      'authentication, validation, sender ownership (403 FORBIDDEN), request_id (409 DUPLICATE_REQUEST with ' +
      '`message_id` of the existing message), credits (402 INSUFFICIENT_CREDITS). `send_at` schedules it; ' +
      `\`ttl_s\` bounds how long it may wait before it expires. ${STATES}`,
    tags,
    auth: 'account',
    body: sendMessageBody,
    response: { status: 201, description: 'The queued message.', schema: messageSchema },
    errors: ['FORBIDDEN', 'DUPLICATE_REQUEST', 'INSUFFICIENT_CREDITS'],
  });
  defineRoute(registry, {
    method: 'get',
    path: '/api/v1/messages',
    summary: 'List messages',
    description: 'Newest first; `status`, `direction`, `phone` and the creation range narrow the list.',
    tags,
    auth: 'account',
    query: messageListQuery,
    response: { status: 200, description: 'A page of messages.', schema: pageOf(messageSchema) },
  });
  defineRoute(registry, {
    method: 'get',
    path: '/api/v1/messages/{id}',
    summary: 'Read a message with its state history',
    description: STATES,
    tags,
    auth: 'account',
    params: messageIdParams,
    response: { status: 200, description: 'The message and every state it has been in.', schema: messageSchema },
    errors: ['NOT_FOUND'],
  });
  defineRoute(registry, {
    method: 'post',
    path: '/api/v1/bulk-messages',
    summary: 'Send one text to many recipients',
    description:
      'One message per distinct recipient (1 to 1,000; repeats are sent once). All or nothing on credits: ' +
      'one credit per recipient, 402 if the sender’s group cannot cover them all. Each invalid recipient is ' +
      'named in `errors` as `recipients.<index>`.',
    tags,
    auth: 'account',
    body: sendBulkBody,
    response: { status: 201, description: 'The bulk message and its messages.', schema: bulkCreatedSchema },
    errors: ['FORBIDDEN', 'INSUFFICIENT_CREDITS'],
  });
  defineRoute(registry, {
    method: 'get',
    path: '/api/v1/bulk-messages/{id}',
    summary: 'Read a bulk message with its messages counted by state',
    tags,
    auth: 'account',
    params: bulkIdParams,
    response: { status: 200, description: 'The bulk message.', schema: bulkSchema },
    errors: ['NOT_FOUND'],
  });
}

function registerDeviceRoutes(registry: OpenAPIRegistry): void {
  const tags = ['Phone API'];
  const deviceErrors = ['DEVICE_NOT_ACTIVATED', 'FORBIDDEN'] as const;
  defineRoute(registry, {
    method: 'post',
    path: '/api/v1/device/outbox/claim',
    summary: 'Claim messages to send',
    description:
      'Hands the phone its oldest due queued messages, now `dispatched`; concurrent claims never share one. ' +
      '`?wait=N` (seconds, at most 30) long-polls while none is queued and answers as soon as one is sent. ' +
      'Pacing holds: never more than the phone’s `messages_per_minute` in a rolling minute, nor past its ' +
      '`daily_cap` per UTC day. The body is optional.',
    tags,
    auth: 'device',
    body: claimBody,
    query: claimQuery,
    response: { status: 200, description: 'The claimed messages (possibly none).', schema: claimAnswerSchema },
    errors: [...deviceErrors],
  });
  defineRoute(registry, {
    method: 'post',
    path: '/api/v1/device/messages/{id}/status',
    summary: 'Report what became of a message',
    description: `Moves a message of this phone to \`sent\`, \`delivered\` or \`failed\`. ${STATES}`,
    tags,
    auth: 'device',
    params: messageIdParams,
    body: statusReportBody,
    response: { status: 200, description: 'The message.', schema: messageSchema },
    errors: [...deviceErrors, 'NOT_FOUND', 'INVALID_TRANSITION'],
  });
  defineRoute(registry, {
    method: 'post',
    path: '/api/v1/device/messages/received',
    summary: 'Record an SMS the phone received',
    description:
      'Creates an inbound message (`received`) and emits `message.received`. A retry with the same ' +
      '`device_message_id` answers 200 with the message already recorded, and emits nothing.',
    tags,
    auth: 'device',
    body: receivedBody,
    response: { status: 201, description: 'The inbound message (200 on a retry).', schema: messageSchema },
    errors: [...deviceErrors],
  });
}
