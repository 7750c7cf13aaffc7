import type { AccountPrincipal } from '@/lib/auth/principal';
import { DomainError } from '@/lib/errors';

/**
 * The scopes of SMSGate's JWTs, as its clients name them (client-go `smsgateway.JWTScope`, listed
 * in the reference server's OpenAPI document), and which operation of the integrator API each
 * opens. An account key (HTTP Basic or Bearer) holds every scope, as the reference's `all:any`.
 */
export const SMSGATE_SCOPES = [
  'devices:list',
  'devices:delete',
  'inbox:list',
  'inbox:refresh',
  'logs:read',
  'messages:cancel',
  'messages:send',
  'messages:read',
  'messages:list',
  'messages:export',
  'settings:read',
  'settings:write',
  'tokens:manage',
  'webhooks:list',
  'webhooks:write',
  'webhooks:delete',
] as const;
export type SmsgateScope = (typeof SMSGATE_SCOPES)[number];

/** The one scope of a refresh token; no other credential holds it, not even an account key. */
export const REFRESH_SCOPE = 'tokens:refresh';

/**
 * The scope each operation needs, by operationId (the reference's `permissions.RequireScope` on
 * each handler). An operation of the integrator API missing here refuses every JWT.
 */
export const OPERATION_SCOPES: Readonly<Record<string, SmsgateScope | typeof REFRESH_SCOPE>> = {
  smsgateListMessages: 'messages:list',
  smsgateSendMessage: 'messages:send',
  smsgateGetMessage: 'messages:read',
  smsgateCancelMessage: 'messages:cancel',
  smsgateExportInbox: 'messages:export',
  smsgateListInbox: 'inbox:list',
  smsgateRefreshInbox: 'inbox:refresh',
  smsgateListDevices: 'devices:list',
  smsgateRemoveDevice: 'devices:delete',
  smsgateGetSettings: 'settings:read',
  smsgateReplaceSettings: 'settings:write',
  smsgatePatchSettings: 'settings:write',
  smsgateListWebhooks: 'webhooks:list',
  smsgateRegisterWebhook: 'webhooks:write',
  smsgateDeleteWebhook: 'webhooks:delete',
  smsgateLogs: 'logs:read',
  smsgateIssueToken: 'tokens:manage',
  smsgateRevokeToken: 'tokens:manage',
  smsgateRefreshToken: REFRESH_SCOPE,
};

/** Whether `principal` holds `scope`: an account key holds all but the refresh scope, a JWT its own. */
export function holdsScope(principal: AccountPrincipal, scope: string): boolean {
  if (!principal.token) return scope !== REFRESH_SCOPE;
  return principal.token.scopes.includes(scope);
}

/** 403 as the reference answers a missing scope (`scope required: …`). */
export function requireScope(principal: AccountPrincipal, operationId: string | undefined): void {
  const scope = operationId ? OPERATION_SCOPES[operationId] : undefined;
  if (scope ? holdsScope(principal, scope) : !principal.token) return;
  throw new DomainError(
    'FORBIDDEN',
    scope ? `scope required: ${scope}` : 'This operation takes an account key, not a token.',
  );
}
