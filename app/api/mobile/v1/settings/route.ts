import { appSettingsDocument } from '@/lib/protocols/smsgate-app/device';
import { mobileRoute } from '@/lib/protocols/smsgate-app/route';

export const GET = mobileRoute({ auth: 'device' }, async ({ db, principal }) => appSettingsDocument(db, principal));
