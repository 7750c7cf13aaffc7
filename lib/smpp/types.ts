// The SMPP domain's types that the adapter (lib/protocols/smpp) names, without importing the tables.
export type { SmppBindKind, SmppDeliveryKind, SmppDeliveryPayload } from '@/db/schema';
