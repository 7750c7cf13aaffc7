import { integratorRoute } from '@/lib/protocols/smsgate-api/route';
import { settingsDocument } from '@/lib/protocols/smsgate-api/schemas';
import {
  patchSmsgateSettings,
  replaceSmsgateSettings,
  showSmsgateSettings,
} from '@/lib/protocols/smsgate-api/settings';

const tags = ['SMSGate integrator API' as const];

export const GET = integratorRoute(
  {
    auth: 'integrator',
    doc: {
      operationId: 'smsgateGetSettings',
      summary: 'Read settings (SMSGate)',
      description:
        'Includes `webhooks.signing_key`, the key that signs SMSGate-format webhooks; each read is written to the audit log (`smsgate_signing_key.revealed`).',
      tags,
      response: { description: 'The settings document.', schema: settingsDocument },
    },
  },
  async ({ db, principal }) => showSmsgateSettings(db, principal.accountId),
);

export const PUT = integratorRoute(
  {
    auth: 'integrator',
    body: settingsDocument,
    doc: {
      operationId: 'smsgateReplaceSettings',
      summary: 'Replace settings (SMSGate)',
      tags,
      response: { description: 'The settings document now.', schema: settingsDocument },
    },
  },
  async ({ db, principal, body }) => replaceSmsgateSettings(db, principal.accountId, body),
);

export const PATCH = integratorRoute(
  {
    auth: 'integrator',
    body: settingsDocument,
    doc: {
      operationId: 'smsgatePatchSettings',
      summary: 'Update settings in part (SMSGate)',
      description: 'Each section given is merged into the stored one.',
      tags,
      response: { description: 'The settings document now.', schema: settingsDocument },
    },
  },
  async ({ db, principal, body }) => patchSmsgateSettings(db, principal.accountId, body),
);
