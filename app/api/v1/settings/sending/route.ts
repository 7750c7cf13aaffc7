import { route } from '@/lib/http/route';
import { sendingSettingsBody, sendingSettingsSchema } from '@/lib/settings/schemas';
import { accountSending, updateAccountSending } from '@/lib/settings/settings';

export const GET = route(
  {
    auth: 'account',
    doc: {
      operationId: 'getSendingSettings',
      summary: 'Read the account’s sending settings',
      description:
        'The send window (quiet hours), max attempts of automatic retries and the destination-country allow-list. A group other than the default may override each (`PATCH /api/v1/phone-groups/{id}` with `sending`).',
      tags: ['Sending settings'],
      response: { description: 'The settings.', schema: sendingSettingsSchema },
    },
  },
  async ({ db, principal }) => accountSending(db, principal.accountId),
);

export const PATCH = route(
  {
    auth: 'account',
    body: sendingSettingsBody,
    doc: {
      operationId: 'updateSendingSettings',
      summary: 'Change the account’s sending settings',
      description:
        'Only the keys given change. `send_window: null` sends at any hour; `allowed_countries: null` allows any country. An unknown time zone, an empty day list, `start` not before `end`, or an unknown country code answers 400 naming the field.',
      tags: ['Sending settings'],
      response: { description: 'The settings.', schema: sendingSettingsSchema },
    },
  },
  async ({ db, principal, body }) => updateAccountSending(db, principal.accountId, body),
);
