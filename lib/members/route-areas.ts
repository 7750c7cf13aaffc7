import type { MemberRole } from '@/db/schema';
import { type Access, type Area, may, rolesThatMay } from './roles';

/**
 * The one table of which area of lib/members/roles.ts each route of the API belongs to, by the
 * route's operationId (unique per method and path: app/route-index.ts lists the routes, and
 * test/api/route-areas.test.ts fails when a route of it has no entry here or an entry names no route).
 * A GET or HEAD reads its area; any other method writes it, except the operations of READ_ONLY
 * (a POST that only reads) and of EVERY_ROLE (the caller's own sign-out, leaving an account:
 * the operation checks the rest itself). The route wrapper (lib/http/route.ts) refuses an account
 * principal with a role that may not (403 FORBIDDEN); a key without a role is not bounded.
 */
const BY_AREA = {
  messages: [
    'sendMessage',
    'listMessages',
    'getMessage',
    'cancelMessage',
    'sendBulkMessage',
    'getBulkMessage',
    'cancelBulkMessage',
    'listConversations',
    'getConversation',
    // Twilio's surface (its Auth Token carries no role; listed so that one table covers every route).
    'twilioCreateMessage',
    'twilioListMessages',
    'twilioFetchMessage',
    'twilioUpdateMessage',
    'twilioDeleteMessage',
    // SMSGate's integrator API: an account key as Basic password or Bearer, or a JWT issued under one.
    'smsgateSendMessage',
    'smsgateListMessages',
    'smsgateGetMessage',
    'smsgateCancelMessage',
    'smsgateListInbox',
    'smsgateRefreshInbox',
    'smsgateExportInbox',
  ],
  phones: [
    'listPhones',
    'getPhone',
    'createPhone',
    'updatePhone',
    'deletePhone',
    'listPhoneDevices',
    'revokePhoneDevice',
    'listPhoneHeartbeats',
    'listInboxExports',
    'requestInboxExport',
    'createPairingCode',
    'resendSimCheck',
    'verifySimCheck',
    // An account key may report a heartbeat for one of its phones (a device key is not bounded by roles).
    'recordHeartbeat',
    'twilioListIncomingPhoneNumbers',
    'smsgateListDevices',
    'smsgateRemoveDevice',
    'smsgateLogs',
  ],
  groups: ['listPhoneGroups', 'getPhoneGroup', 'createPhoneGroup', 'renamePhoneGroup', 'deletePhoneGroup'],
  opt_outs: ['listOptOuts', 'addOptOut', 'removeOptOut', 'getOptOutSettings', 'updateOptOutSettings'],
  contacts: [
    'listContacts',
    'getContact',
    'createContact',
    'updateContact',
    'deleteContact',
    'exportContacts',
    'importContacts',
  ],
  automation: [
    'listInboundRules',
    'getInboundRule',
    'createInboundRule',
    'updateInboundRule',
    'deleteInboundRule',
    'getAutomationSettings',
    'updateAutomationSettings',
    'testInboundRules',
    'listEmailAddresses',
    'getEmailAddress',
    'addEmailAddress',
    'removeEmailAddress',
  ],
  sending: [
    'getSendingSettings',
    'updateSendingSettings',
    'smsgateGetSettings',
    'smsgatePatchSettings',
    'smsgateReplaceSettings',
  ],
  alerts: ['listAlerts', 'getAlertSettings', 'updateAlertSettings'],
  credits: ['getCreditBalances', 'creditBalanceHistory', 'listCreditLedger', 'transferCredits'],
  stats: ['getMessageStats'],
  audit: ['listAuditLog'],
  data: ['getDataSettings', 'updateDataSettings'],
  api_keys: [
    'listApiKeys',
    'createApiKey',
    'revokeApiKey',
    // A JWT of the integrator API is a credential: issuing, refreshing and revoking one changes keys.
    'smsgateIssueToken',
    'smsgateRefreshToken',
    'smsgateRevokeToken',
  ],
  webhooks: [
    'listWebhooks',
    'getWebhook',
    'createWebhook',
    'updateWebhook',
    'deleteWebhook',
    'getWebhookSecret',
    'rotateWebhookSecret',
    'sendWebhookTest',
    'listWebhookDeliveries',
    'getWebhookDelivery',
    'resendWebhookDelivery',
    'rotateCallbackSecret',
    'smsgateListWebhooks',
    'smsgateRegisterWebhook',
    'smsgateDeleteWebhook',
  ],
  integrations: [
    'getTwilioSettings',
    'createTwilioAuthToken',
    'listSmppCredentials',
    'createSmppCredential',
    'revokeSmppCredential',
    'getEmailSmsSettings',
    'updateEmailSmsSettings',
  ],
  members: [
    'listMembers',
    'updateMember',
    'removeMember',
    'listInvitations',
    'getInvitation',
    'createInvitation',
    'revokeInvitation',
    'acceptInvitation',
  ],
  account: [
    'twilioFetchAccount',
    'endAllSessions',
    // Owner only: requiring two-factor sign-in of every member.
    'getSecuritySettings',
    'updateSecuritySettings',
    // The caller's own: their two-factor sign-in, their memberships.
    'getTwoFactorStatus',
    'startTwoFactorEnrolment',
    'confirmTwoFactor',
    'disableTwoFactor',
    'listMemberships',
    'switchAccount',
  ],
} as const satisfies Record<Area, readonly string[]>;

/** Operations that write nothing though their method is not GET: they need only read access. */
const READ_ONLY: ReadonlySet<string> = new Set([
  'testInboundRules', // runs the rules on a sample message; nothing is stored or sent
]);

/**
 * Operations every role may call: signing oneself out everywhere, and removing a member, which a
 * member may do to themselves (leaving; lib/members/manage.ts checks the role for anyone else);
 * accepting an invitation to another account; one's own two-factor sign-in and memberships.
 */
const EVERY_ROLE: ReadonlySet<string> = new Set([
  'endAllSessions',
  'removeMember',
  'acceptInvitation',
  'getTwoFactorStatus',
  'startTwoFactorEnrolment',
  'confirmTwoFactor',
  'disableTwoFactor',
  'listMemberships',
  'switchAccount',
]);

/**
 * Operations no account principal reaches, so no role applies: the reason for each. A route whose
 * auth mode is `none` or `device` belongs here (the test checks both ways).
 */
export const EXEMPT: Readonly<Record<string, string>> = {
  getApiCatalog: 'public: the API catalogue',
  getOpenApiDocument: 'public: the OpenAPI document',
  listWebhookEvents: 'public: the list of webhook events',
  getHealth: 'public: health check',
  getHealthLive: 'public: health check',
  getHealthReady: 'public: health check',
  getHealthStartup: 'public: health check',
  smsgateHealth: 'public: health check',
  smsgateHealthLive: 'public: health check',
  smsgateHealthReady: 'public: health check',
  smsgateHealthStartup: 'public: health check',
  listDevInbox: 'public in local mode: the dev inbox',
  passwordSignIn: 'sign-in: no principal yet',
  passwordRegister: 'sign-up: no principal yet',
  requestSignInCode: 'sign-in: no principal yet',
  confirmEmailAddress: 'a link mailed to the address: no principal',
  registerDevice: 'device activation: no principal yet',
  verifySim: 'device activation: no principal yet',
  confirmEmailBinding: 'device key: a phone binds itself to an account',
  requestEmailBindingCode: 'device key: a phone binds itself to an account',
  reportMessageStatus: 'device key: the phone reports its messages',
  recordReceivedMessage: 'device key: the phone reports what it received',
  claimOutbox: 'device key: the phone takes its messages',
  registerApp: 'SMSGate app registration: no principal yet',
  receiveAppCallback: 'SMSGate app callback: signed by the device, no principal',
  getAppDevice: "device token: the SMSGate app's own device",
  updateAppDevice: "device token: the SMSGate app's own device",
  streamAppEvents: "device token: the SMSGate app's event stream",
  pullAppMessages: 'device token: the SMSGate app takes its messages',
  reportAppMessageStates: 'device token: the SMSGate app reports its messages',
  getAppSettings: "device token: the SMSGate app's settings",
  listAppWebhooks: "device token: the SMSGate app's webhooks",
};

/** What a route needs: its area, and its access when the method does not decide it (see above). */
export type RouteRule = { area: Area; access?: Access; everyRole?: true };

const RULES: ReadonlyMap<string, RouteRule> = new Map(
  (Object.entries(BY_AREA) as Array<[Area, readonly string[]]>).flatMap(([area, operations]) =>
    operations.map((operationId): [string, RouteRule] => {
      if (EVERY_ROLE.has(operationId)) return [operationId, { area, everyRole: true }];
      return [operationId, READ_ONLY.has(operationId) ? { area, access: 'read' } : { area }];
    }),
  ),
);

/** The rule of an operation; undefined for an exempt one, or an operation of no route. */
export function routeRule(operationId: string | undefined): RouteRule | undefined {
  return operationId === undefined ? undefined : RULES.get(operationId);
}

/** Every operation the table names (for the drift test). */
export function listedOperations(): { ruled: string[]; exempt: string[] } {
  return { ruled: [...RULES.keys()], exempt: Object.keys(EXEMPT) };
}

/** The access a request of `method` needs under `rule`. */
export function accessFor(rule: RouteRule, method: string): Access {
  return rule.access ?? (method === 'GET' || method === 'HEAD' ? 'read' : 'write');
}

/** Whether `role` may call an operation of `rule` with `method`. */
export function roleMayCall(role: MemberRole, rule: RouteRule, method: string): boolean {
  return rule.everyRole === true || may(role, rule.area, accessFor(rule, method));
}

/** How an error names each area: "may not change API keys", "may not see the audit log". */
const AREA_NAMES: Record<Area, string> = {
  messages: 'messages',
  phones: 'phones',
  groups: 'phone groups',
  opt_outs: 'opt-outs',
  contacts: 'contacts',
  automation: 'automation',
  sending: 'the sending settings',
  alerts: 'alerts',
  credits: 'credits',
  stats: 'statistics',
  audit: 'the audit log',
  data: 'the data settings',
  api_keys: 'API keys',
  webhooks: 'webhooks',
  integrations: 'the integrations',
  members: 'members',
  account: 'the account',
};

/** "an owner, admin or developer": the roles that may, most powerful first. */
function rolesPhrase(roles: MemberRole[]): string {
  const names = [...roles].reverse();
  const listed = names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : (names[0] ?? 'nobody');
  return `${/^[aeiou]/.test(listed) ? 'an' : 'a'} ${listed}`;
}

/**
 * The detail of a refusal: "Your role (operator) may not change API keys; an owner, admin or developer
 * may." (a session), or the same about "This API key's role" (a key with a role).
 */
export function refusalDetail(role: MemberRole, area: Area, access: Access, via: 'session' | 'api_key'): string {
  const who = via === 'session' ? `Your role (${role})` : `This API key's role (${role})`;
  const verb = access === 'read' ? 'see' : area === 'messages' ? 'send or change' : 'change';
  return `${who} may not ${verb} ${AREA_NAMES[area]}; ${rolesPhrase(rolesThatMay(area, access))} may.`;
}
