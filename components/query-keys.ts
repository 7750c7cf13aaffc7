/**
 * Every TanStack Query key of the dashboard, one factory per resource. `root` is the prefix a change
 * invalidates (everything about that resource); the other keys sit under it, so invalidating the root
 * refreshes lists, option lists and single items alike.
 */
export const queryKeys = {
  phones: {
    root: ['phones'],
    list: () => ['phones', 'list'],
    options: () => ['phones', 'options'],
    one: (id: string) => ['phones', 'one', id],
    devices: (id: string) => ['phones', 'one', id, 'devices'],
    heartbeats: (id: string) => ['phones', 'one', id, 'heartbeats'],
    inboxExports: (id: string) => ['phones', 'one', id, 'inbox-exports'],
  },
  groups: {
    root: ['groups'],
    list: () => ['groups', 'list'],
    options: () => ['groups', 'options'],
  },
  balance: { root: ['balance'] },
  bulks: { root: ['bulks'], one: (id: string) => ['bulks', 'one', id] },
  ledger: {
    root: ['ledger'],
    list: (filters: Record<string, string> = {}) => ['ledger', 'list', filters],
    history: (groupId: string) => ['ledger', 'history', groupId],
  },
  messages: {
    root: ['messages'],
    list: (filters: Record<string, string>) => ['messages', 'list', filters],
    one: (id: string) => ['messages', 'one', id],
    unsentOf: (phone: string) => ['messages', 'unsent', phone],
    thread: (counterpart: string) => ['messages', 'thread', counterpart],
  },
  webhooks: {
    root: ['webhooks'],
    list: () => ['webhooks', 'list'],
    options: () => ['webhooks', 'options'],
    one: (id: string) => ['webhooks', 'one', id],
  },
  webhookEvents: { root: ['webhook-events'] },
  deliveries: {
    root: ['deliveries'],
    list: (webhookId: string) => ['deliveries', 'list', webhookId],
    one: (deliveryId: string) => ['deliveries', 'one', deliveryId],
  },
  apiKeys: { root: ['api-keys'], list: () => ['api-keys', 'list'] },
  invitations: { root: ['invitations'], list: () => ['invitations', 'list'] },
  memberships: { root: ['memberships'] },
  members: { root: ['members'], list: () => ['members', 'list'] },
  twilio: { root: ['twilio'] },
  smpp: { root: ['smpp'], list: () => ['smpp', 'list'] },
  auditLog: {
    root: ['audit-log'],
    list: (action: string, memberId = '') => ['audit-log', 'list', action, memberId],
  },
  optOuts: { root: ['opt-outs'], list: () => ['opt-outs', 'list'] },
  contacts: {
    root: ['contacts'],
    list: (search: string) => ['contacts', 'list', search],
    suggestions: (search: string) => ['contacts', 'suggestions', search],
  },
  optOutSettings: { root: ['opt-out-settings'] },
  inboundRules: {
    root: ['inbound-rules'],
    list: () => ['inbound-rules', 'list'],
    test: (query: unknown) => ['inbound-rules', 'test', query],
  },
  automationSettings: { root: ['automation-settings'] },
  emailAddresses: { root: ['email-addresses'], list: () => ['email-addresses', 'list'] },
  sendingSettings: { root: ['sending-settings'] },
  dataSettings: { root: ['data-settings'] },
  alertSettings: { root: ['alert-settings'] },
  emailSmsSettings: { root: ['email-sms-settings'] },
  twoFactor: { root: ['two-factor'] },
  securitySettings: { root: ['security-settings'] },
  alerts: { root: ['alerts'], open: () => ['alerts', 'open'] },
  stats: { root: ['messages', 'stats'] },
} as const;

export type Resource = keyof typeof queryKeys;
