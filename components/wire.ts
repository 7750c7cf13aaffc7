/**
 * The wire types the dashboard reads, inferred from the API's own zod schemas (the same ones that
 * validate answers and feed the OpenAPI document), so a field renamed in the API fails the type check
 * here instead of drifting. Type-only imports: nothing of zod or the server reaches the browser bundle.
 */

import type { apiKeySchema, createdApiKeySchema } from '@/lib/auth/schemas';
import type {
  automationSettingsSchema,
  ruleActionSchema,
  ruleSchema,
  testRuleAnswerSchema,
} from '@/lib/automation/schemas';
import type { contactSchema, importPreviewSchema, importResultSchema } from '@/lib/contacts/schemas';
import type {
  balanceHistorySchema,
  balancesSchema,
  ledgerEntrySchema,
  transferResultSchema,
} from '@/lib/credits/schemas';
import type { pairingCodeResponse, phoneDeviceSchema, simCardSchema } from '@/lib/devices/schemas';
import type { catalogueEntrySchema } from '@/lib/event-catalogue/catalogue';
import type { groupSchema } from '@/lib/groups/schemas';
import type { heartbeatEntrySchema } from '@/lib/heartbeats/schemas';
import type { invitationSchema, memberListSchema, memberSchema, membershipSchema } from '@/lib/members/schemas';
import type { bulkSchema, messageSchema } from '@/lib/messages/schemas';
import type { phoneSchema, phoneWithUsageSchema } from '@/lib/phones/schemas';
import type { inboxExportSchema } from '@/lib/protocols/smsgate-app/schemas';
import type { createdSmppCredentialSchema, smppCredentialSchema } from '@/lib/smpp/schemas';
import type { messageStatsSchema } from '@/lib/stats/schemas';
import type { createdWebhookSchema, deliveryDetailSchema, deliverySchema, webhookSchema } from '@/lib/webhooks/schemas';
import type { z } from '@/lib/zod';

export type ApiKey = z.output<typeof apiKeySchema>;
export type CreatedApiKey = z.output<typeof createdApiKeySchema>;
export type Member = z.output<typeof memberSchema>;
export type MemberList = z.output<typeof memberListSchema>;
export type SmppCredential = z.output<typeof smppCredentialSchema>;
export type CreatedSmppCredential = z.output<typeof createdSmppCredentialSchema>;
export type Balances = z.output<typeof balancesSchema>;
export type BalanceHistory = z.output<typeof balanceHistorySchema>;
export type LedgerEntry = z.output<typeof ledgerEntrySchema>;
export type TransferResult = z.output<typeof transferResultSchema>;
export type PairingCode = z.output<typeof pairingCodeResponse>;
export type Device = z.output<typeof phoneDeviceSchema>;
export type SimCard = z.output<typeof simCardSchema>;
export type CatalogueEntry = z.output<typeof catalogueEntrySchema>;
export type Group = z.output<typeof groupSchema>;
export type Heartbeat = z.output<typeof heartbeatEntrySchema>;
export type Message = z.output<typeof messageSchema>;
export type Contact = z.output<typeof contactSchema>;
export type ContactImportPreview = z.output<typeof importPreviewSchema>;
export type ContactImportResult = z.output<typeof importResultSchema>;
export type MessageStats = z.output<typeof messageStatsSchema>;
export type Bulk = z.output<typeof bulkSchema>;
/** A phone as read, listed and updated: with its usage under its caps. */
export type Phone = z.output<typeof phoneWithUsageSchema>;
/** A phone as other answers show it (a SIM check, a heartbeat): without usage. */
export type PhoneCore = z.output<typeof phoneSchema>;
export type Webhook = z.output<typeof webhookSchema>;
export type CreatedWebhook = z.output<typeof createdWebhookSchema>;
export type Delivery = z.output<typeof deliverySchema>;
export type DeliveryDetail = z.output<typeof deliveryDetailSchema>;
export type InboundRule = z.output<typeof ruleSchema>;
export type RuleAction = z.output<typeof ruleActionSchema>;
export type RulesTestResult = z.output<typeof testRuleAnswerSchema>;
export type AutomationSettings = z.output<typeof automationSettingsSchema>;
export type Invitation = z.output<typeof invitationSchema>;
export type Membership = z.output<typeof membershipSchema>;

export type InboxExport = z.output<typeof inboxExportSchema>;
