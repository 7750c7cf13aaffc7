import type { Database } from '@/db';
import { hasOpenStream } from '@/lib/devices/sessions';
import { DomainError, notFound } from '@/lib/errors';
import { phoneOfIdText } from '@/lib/phones/owned';
import { phonesWithDevices } from '@/lib/phones/read';
import { type InboxMessageType, requestInboxExport } from '@/lib/protocols/smsgate-app/inbox-export';
import type { z } from '@/lib/zod';
import type { inboxRefreshBody } from './schemas';

/**
 * POST /inbox/refresh (and the older POST /messages/inbox/export): the reference's
 * `inboxSvc.Refresh` (internal/sms-gateway/inbox/service.go), onto the same export request as
 * `POST /api/v1/phones/{id}/inbox-export`. With `deviceId`, that phone (404 when it is not the
 * account's); without, every phone of the account holding an event stream open here, and 409
 * PHONE_NOT_CONNECTED when none does. `webhookDelivery: Disabled` (or `triggerWebhooks: false`)
 * is passed on to the app, which then sends nothing back: nothing is recovered.
 */
export async function refreshSmsgateInbox(
  db: Database,
  accountId: string,
  body: z.output<typeof inboxRefreshBody>,
  fixedTypes?: InboxMessageType[],
): Promise<void> {
  const input = {
    since: new Date(body.since),
    until: new Date(body.until),
    messageTypes: fixedTypes ?? body.messageTypes ?? undefined,
    triggerWebhooks: body.webhookDelivery ? body.webhookDelivery !== 'Disabled' : (body.triggerWebhooks ?? true),
  };
  if (body.deviceId) {
    const phone = await phoneOfIdText(db, accountId, body.deviceId);
    if (!phone) throw notFound('Device');
    await requestInboxExport(db, accountId, phone.id, input);
    return;
  }
  const candidates = await phonesWithDevices(db, accountId);
  const connected = candidates.filter((phone) => phone.deviceId && hasOpenStream(phone.deviceId));
  if (connected.length === 0) {
    throw new DomainError('PHONE_NOT_CONNECTED', 'No phone of the account holds an event stream open to this server.');
  }
  for (const phone of connected) await requestInboxExport(db, accountId, phone.id, input);
}
