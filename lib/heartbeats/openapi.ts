import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { defineRoute, pageOf } from '@/lib/openapi/define';
import { phoneIdParams, phoneSchema } from '@/lib/phones/schemas';
import { heartbeatBody, heartbeatEntrySchema, heartbeatHistoryQuery } from './schemas';

export function registerHeartbeatsRoutes(registry: OpenAPIRegistry): void {
  defineRoute(registry, {
    method: 'post',
    path: '/api/v1/heartbeats',
    summary: 'Report a phone’s status and battery',
    description:
      'Takes an account key (any phone of the account) or a device key (its own number only; another ' +
      'number answers 403 `FORBIDDEN`). Each change between online and offline emits `phone.online` / ' +
      '`phone.offline`. A phone with no heartbeat for `HEARTBEAT_TIMEOUT_S` (default 300) is marked offline.',
    tags: ['Heartbeats'],
    auth: 'any',
    body: heartbeatBody,
    response: { status: 200, description: 'The phone after the heartbeat.', schema: phoneSchema },
    errors: ['FORBIDDEN'],
  });
  defineRoute(registry, {
    method: 'get',
    path: '/api/v1/phones/{id}/heartbeats',
    summary: 'A phone’s heartbeat history',
    description: 'Newest first, for charts of status and battery over time; `since` (RFC 3339) bounds it.',
    tags: ['Heartbeats', 'Phones'],
    auth: 'account',
    params: phoneIdParams,
    query: heartbeatHistoryQuery,
    response: { status: 200, description: 'A page of heartbeats.', schema: pageOf(heartbeatEntrySchema) },
    errors: ['NOT_FOUND'],
  });
}
