import { registerSmsgateApi } from './smsgate-api/register';
import { registerTwilio } from './twilio/register';

/**
 * Fills the domain's registries with the adapters' implementations: auth modes (lib/http), webhook
 * formats (lib/webhooks), sealed columns (lib/backup). The domain never imports an adapter; every
 * entry point imports this module once instead: the host (lib/server/start.ts), the worker and ops
 * scripts, the adapters' route wrappers, the app routes that manage webhooks, and Vitest's setup.
 * test/protocol-registries.test.ts checks that each name the domain's enums list has an implementation.
 */
registerSmsgateApi();
registerTwilio();

/** Importing this module registers; the constant lets an entry point say so in code. */
export const PROTOCOLS_REGISTERED = true;
