import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { defineRoute, pageOf } from '@/lib/openapi/define';
import { createPhoneBody, phoneIdParams, phoneListQuery, phoneSchema, updatePhoneBody } from './schemas';

const tags = ['Phones'];

export function registerPhonesRoutes(registry: OpenAPIRegistry): void {
  defineRoute(registry, {
    method: 'post',
    path: '/api/v1/phones',
    summary: 'Register a phone number',
    description:
      'Adds a number to the account, in `group_id` or the default group. Counts toward the plan’s phone maximum. ' +
      'A phone activated through device registration is added automatically.',
    tags,
    auth: 'account',
    body: createPhoneBody,
    response: { status: 201, description: 'The phone.', schema: phoneSchema },
    errors: ['DUPLICATE_PHONE', 'PLAN_LIMIT_REACHED', 'GROUP_NOT_FOUND'],
  });
  defineRoute(registry, {
    method: 'get',
    path: '/api/v1/phones',
    summary: 'List phones',
    description: 'Newest first; `group_id` and `status` narrow the list.',
    tags,
    auth: 'account',
    query: phoneListQuery,
    response: { status: 200, description: 'A page of phones.', schema: pageOf(phoneSchema) },
  });
  defineRoute(registry, {
    method: 'get',
    path: '/api/v1/phones/{id}',
    summary: 'Read a phone',
    tags,
    auth: 'account',
    params: phoneIdParams,
    response: { status: 200, description: 'The phone.', schema: phoneSchema },
    errors: ['NOT_FOUND'],
  });
  defineRoute(registry, {
    method: 'patch',
    path: '/api/v1/phones/{id}',
    summary: 'Update a phone',
    description:
      'Changes the label, the group, or the pacing: `messages_per_minute` (1–60) and `daily_cap` ' +
      '(null for none) bound how fast the phone is handed messages. Fields left out keep their value.',
    tags,
    auth: 'account',
    params: phoneIdParams,
    body: updatePhoneBody,
    response: { status: 200, description: 'The updated phone.', schema: phoneSchema },
    errors: ['NOT_FOUND', 'GROUP_NOT_FOUND'],
  });
  defineRoute(registry, {
    method: 'delete',
    path: '/api/v1/phones/{id}',
    summary: 'Remove a phone',
    description:
      'Removes the phone and its messages. Outbound messages not yet handed to the carrier are refunded first.',
    tags,
    auth: 'account',
    params: phoneIdParams,
    response: { status: 204, description: 'Removed.' },
    errors: ['NOT_FOUND'],
  });
}
