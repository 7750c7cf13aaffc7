import { route } from '@/lib/http/route';
import { getOptOutSettings, updateOptOutSettings } from '@/lib/opt-outs/manage';
import { optOutSettingsBody, optOutSettingsSchema } from '@/lib/opt-outs/schemas';

export const GET = route(
  {
    auth: 'account',
    doc: {
      operationId: 'getOptOutSettings',
      summary: 'Read opt-out settings',
      tags: ['Opt-outs'],
      response: { description: 'The settings and the words recognised.', schema: optOutSettingsSchema },
    },
  },
  async ({ db, principal }) => getOptOutSettings(db, principal.accountId),
);

export const PATCH = route(
  {
    auth: 'account',
    body: optOutSettingsBody,
    doc: {
      operationId: 'updateOptOutSettings',
      summary: 'Set the opt-out confirmation',
      description:
        'The confirmation texted back, from the phone that received the stop word, when a number opts out (off by default: null). It is an ordinary outbound message, charged to that phone’s group; without credit it is not sent.',
      tags: ['Opt-outs'],
      response: { description: 'The settings.', schema: optOutSettingsSchema },
    },
  },
  async ({ db, principal, body }) => updateOptOutSettings(db, principal.accountId, body),
);
