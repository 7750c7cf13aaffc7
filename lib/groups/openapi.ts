import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { defineRoute, pageOf } from '@/lib/openapi/define';
import { createGroupBody, groupIdParams, groupListQuery, groupSchema, updateGroupBody } from './schemas';

const tags = ['Phone groups'];

export function registerGroupsRoutes(registry: OpenAPIRegistry): void {
  defineRoute(registry, {
    method: 'post',
    path: '/api/v1/phone-groups',
    summary: 'Create a phone group',
    description:
      'Names are unique per account, case-insensitively, after trimming. The name `Default` and ' +
      '`is_default: true` belong to the account’s default group (400 `DEFAULT_GROUP_LOCKED`). ' +
      'Counts toward the plan’s group maximum, the default group included.',
    tags,
    auth: 'account',
    body: createGroupBody,
    response: { status: 201, description: 'The group.', schema: groupSchema },
    errors: ['DUPLICATE_NAME', 'PLAN_LIMIT_REACHED', 'DEFAULT_GROUP_LOCKED'],
  });
  defineRoute(registry, {
    method: 'get',
    path: '/api/v1/phone-groups',
    summary: 'List phone groups',
    description: 'Newest first, each with its balance and phone count.',
    tags,
    auth: 'account',
    query: groupListQuery,
    response: { status: 200, description: 'A page of groups.', schema: pageOf(groupSchema) },
  });
  defineRoute(registry, {
    method: 'get',
    path: '/api/v1/phone-groups/{id}',
    summary: 'Read a phone group',
    tags,
    auth: 'account',
    params: groupIdParams,
    response: { status: 200, description: 'The group.', schema: groupSchema },
    errors: ['GROUP_NOT_FOUND'],
  });
  defineRoute(registry, {
    method: 'patch',
    path: '/api/v1/phone-groups/{id}',
    summary: 'Rename a phone group',
    description: 'The default group cannot be renamed, and no group can be renamed `Default` or made the default.',
    tags,
    auth: 'account',
    params: groupIdParams,
    body: updateGroupBody,
    response: { status: 200, description: 'The renamed group.', schema: groupSchema },
    errors: ['GROUP_NOT_FOUND', 'DUPLICATE_NAME', 'DEFAULT_GROUP_LOCKED'],
  });
  defineRoute(registry, {
    method: 'delete',
    path: '/api/v1/phone-groups/{id}',
    summary: 'Delete a phone group',
    description:
      'Its phones and its credits move to the default group in one transaction (the ledger records the ' +
      'move as `group_merge_out` / `group_merge_in`). The default group cannot be deleted.',
    tags,
    auth: 'account',
    params: groupIdParams,
    response: { status: 204, description: 'Deleted.' },
    errors: ['GROUP_NOT_FOUND', 'DEFAULT_GROUP_LOCKED'],
  });
}
