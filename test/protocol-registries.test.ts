import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sealedColumnsWithoutOpener } from '@/lib/backup/secrets';
import { ADAPTER_AUTH_MODES, registeredAuthModes } from '@/lib/http/request-auth';
import '@/lib/protocols/register';
import { unregisteredWebhookKinds } from '@/lib/webhooks/formats';

/**
 * The domain names what the adapters implement (auth modes, webhook formats, sealed columns) and the
 * adapters register their implementations (lib/protocols/register.ts). These checks fail when a name
 * is added without an implementation, or an entry point forgets the registration.
 */
describe('the adapters fill the domain’s registries', () => {
  it('every adapter auth mode has a strategy', () => {
    expect([...registeredAuthModes()].sort()).toEqual([...ADAPTER_AUTH_MODES].sort());
  });

  it('every kind of webhook has a format', () => {
    expect(unregisteredWebhookKinds()).toEqual([]);
  });

  it('every sealed column an adapter owns has an opener', () => {
    expect(sealedColumnsWithoutOpener()).toEqual([]);
  });

  it('every entry point registers the adapters', () => {
    const root = path.resolve(import.meta.dirname, '..');
    const entryPoints = [
      'lib/server/start.ts',
      'lib/server/background.ts',
      'scripts/worker.ts',
      'scripts/ops.ts',
      'lib/protocols/twilio/route.ts',
      'lib/protocols/smsgate-api/route.ts',
      'app/api/v1/webhooks/route.ts',
      'app/api/v1/webhooks/[id]/route.ts',
      'vitest.config.mts',
    ];
    const missing = entryPoints.filter(
      (file) =>
        !/['"](@\/|\.\.?\/)+lib\/protocols\/register(\.ts)?['"]/.test(fs.readFileSync(path.join(root, file), 'utf8')),
    );
    expect(missing).toEqual([]);
  });
});
