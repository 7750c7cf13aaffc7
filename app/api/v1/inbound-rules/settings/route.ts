import { automationSettingsBody, automationSettingsSchema } from '@/lib/automation/schemas';
import { getAutomationSettings, updateAutomationSettings } from '@/lib/automation/settings';
import { route } from '@/lib/http/route';

export const GET = route(
  {
    auth: 'account',
    doc: {
      operationId: 'getAutomationSettings',
      summary: 'Read the HELP responder and the automatic-message limit',
      tags: ['Inbound automation'],
      response: { description: 'The settings.', schema: automationSettingsSchema },
    },
  },
  async ({ db, principal }) => getAutomationSettings(db, principal.accountId),
);

export const PATCH = route(
  {
    auth: 'account',
    body: automationSettingsBody,
    doc: {
      operationId: 'updateAutomationSettings',
      summary: 'Set the HELP responder',
      description:
        'With a text, an inbound HELP or INFO (the whole message, any case) is answered with it from the receiving phone, before any rule (charged and capped like every automatic SMS). null turns it off (the default).',
      tags: ['Inbound automation'],
      response: { description: 'The settings.', schema: automationSettingsSchema },
    },
  },
  async ({ db, principal, body }) => updateAutomationSettings(db, principal.accountId, body),
);
