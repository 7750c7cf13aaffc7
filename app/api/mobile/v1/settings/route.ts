import { appSettingsDocument } from '@/lib/protocols/smsgate-app/device';
import { APP_SETTINGS } from '@/lib/protocols/smsgate-app/docs';
import { mobileRoute } from '@/lib/protocols/smsgate-app/route';
import { appSettings } from '@/lib/protocols/smsgate-app/schemas';

export const GET = mobileRoute(
  {
    auth: 'device',
    doc: {
      operationId: 'getAppSettings',
      summary: 'The app’s settings document',
      description: APP_SETTINGS,
      tags: ['SMSGate app (mobile)'],
      response: { description: 'The settings document.', schema: appSettings },
    },
  },
  async ({ db, principal }) => appSettingsDocument(db, principal),
);
