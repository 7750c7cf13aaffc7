/**
 * A simulated Android phone for Simgate, over HTTP only:
 *   npm run device -- register --phone +14155550100 --email me@example.com
 *   npm run device -- run --phone +14155550100 --failure-rate 0.1
 *   npm run device -- inject --phone +14155550100 --from +14155550123 --text "Hello"
 * or as the SMSGate Android app, paired with a code from the phone's page in the dashboard:
 *   npm run device -- run --protocol smsgate --phone +14155550100 --code 12345678
 *   npm run device -- inject --protocol smsgate --phone +14155550100 --from +14155550123 --text "Hello"
 */
import fs from 'node:fs';
import { Command, InvalidArgumentError } from 'commander';
import { activateDevice } from '@/tools/device-sim/activate';
import { DeviceClient } from '@/tools/device-sim/client';
import { runDevice } from '@/tools/device-sim/run';
import { type SimCardInfo, SmsGateClient } from '@/tools/device-sim/smsgate-client';
import { type InboxSms, inject, runSmsGateApp } from '@/tools/device-sim/smsgate-run';
import { defaultStatePath, findState, loadState, saveState } from '@/tools/device-sim/state';

const say = (line: string) => console.log(`[device] ${line}`);

function number(min: number, max: number) {
  return (raw: string) => {
    const value = Number(raw);
    if (!Number.isFinite(value) || value < min || value > max) {
      throw new InvalidArgumentError(`expected a number from ${min} to ${max}`);
    }
    return value;
  };
}

type Protocol = 'simgate' | 'smsgate';

function protocol(raw: string): Protocol {
  if (raw !== 'simgate' && raw !== 'smsgate') throw new InvalidArgumentError('expected simgate or smsgate');
  return raw;
}

function pairingCode(raw: string): string {
  if (!/^\d{8}$/.test(raw)) throw new InvalidArgumentError('expected the 8 digits of a pairing code');
  return raw;
}

const PROTOCOL_HELP =
  "simgate (this server's device API) or smsgate (the SMSGate Android app, at <base-url>/api/mobile/v1)";

const program = new Command()
  .name('device')
  .description('Plays an Android phone against a running Simgate server.')
  .option('--base-url <url>', 'the Simgate server', 'http://127.0.0.1:3000')
  .option('--state <file>', 'where the device key is kept (default .data/device-<number>.json)');

const globals = () => program.opts<{ baseUrl: string; state?: string }>();
const stateFile = (phone: string) => globals().state ?? defaultStatePath(phone);

function clientFor(phone: string): { client: DeviceClient; file: string } {
  const file = stateFile(phone);
  const state = loadState(file);
  if (state.protocol === 'smsgate')
    throw new Error(`${file} holds an SMSGate app registration: add --protocol smsgate.`);
  return { client: new DeviceClient({ baseUrl: globals().baseUrl, deviceKey: state.deviceKey }), file };
}

const appBaseUrl = () => `${globals().baseUrl.replace(/\/+$/, '')}/api/mobile/v1`;

/** The app's registration saved for this phone, if any. */
function savedApp(phone: string): SmsGateClient | undefined {
  const state = findState(stateFile(phone));
  if (state?.protocol !== 'smsgate') return undefined;
  return new SmsGateClient({
    baseUrl: appBaseUrl(),
    token: state.token,
    deviceId: state.deviceId,
    signingKey: state.signingKey,
  });
}

/** SIM cards as the app reads them: slot 0 holds the phone's number, slot 1 another. */
function simCardsOf(phone: string, count: number): SimCardInfo[] {
  const digits = phone.replace(/\D/g, '');
  const other = `${phone.slice(0, -1)}${(Number(phone.at(-1)) + 1) % 10}`;
  return [
    { slotIndex: 0, phoneNumber: phone, carrierName: 'Simgate Mobile', iccid: `8901${digits.padStart(15, '0')}` },
    { slotIndex: 1, phoneNumber: other, carrierName: 'Other Carrier', iccid: `8944${digits.padStart(15, '0')}` },
  ].slice(0, count);
}

/** Reuses the saved registration, or signs in by code and saves it, as the app keeps `registrationInfo`. */
async function registeredApp(phone: string, code: string | undefined, sims: number): Promise<SmsGateClient> {
  const file = stateFile(phone);
  const saved = savedApp(phone);
  if (saved) {
    say(`using the registration in ${file}${code ? ' (--code ignored: delete the file to pair again)' : ''}`);
    return saved;
  }
  if (!code) {
    throw new Error(`No SMSGate registration in ${file}: pass --code with a pairing code from the phone's page.`);
  }
  const client = new SmsGateClient({ baseUrl: appBaseUrl() });
  const registration = await client.register({
    code,
    name: 'Simgate/device-simulator',
    simCards: simCardsOf(phone, sims),
  });
  await client.settings();
  saveState(file, {
    protocol: 'smsgate',
    baseUrl: client.baseUrl,
    phone,
    deviceId: registration.id,
    token: registration.token,
    signingKey: client.signingKey,
  });
  say(`registered as device ${registration.id}; state saved to ${file}`);
  return client;
}

program
  .command('register')
  .description('Register the number, verify the SIM, bind an email and create an API key (codes from the dev inbox).')
  .requiredOption('--phone <e164>', 'the phone number')
  .requiredOption('--email <email>', 'the account email to bind')
  .option('--label <label>', 'display name of the phone')
  .option('--country <code>', 'ISO 3166-1 alpha-2 country code')
  .option('--key-name <name>', 'name of the API key to create', 'device simulator')
  .action(async (options: { phone: string; email: string; label?: string; country?: string; keyName: string }) => {
    const client = new DeviceClient({ baseUrl: globals().baseUrl });
    const activation = await activateDevice(client, {
      phone: options.phone,
      email: options.email,
      label: options.label,
      countryCode: options.country,
      apiKeyName: options.keyName,
      log: say,
    });
    const file = stateFile(options.phone);
    saveState(file, { baseUrl: globals().baseUrl, phone: options.phone, email: options.email, ...activation });
    say(`state saved to ${file}`);
    console.log(`API key (shown once): ${activation.apiKey}`);
  });

type RunCommandOptions = {
  protocol: Protocol;
  phone: string;
  code?: string;
  sims: number;
  failureRate: number;
  delayMs: number;
  holdMs: number;
  wait: number;
  limit: number;
  heartbeatS: number;
  battery: number;
  inbox?: string;
  passphrase?: string;
};

/**
 * `--inbox`: a JSON array of `{ from, text, receivedAt }`, the SMS the phone's inbox holds without
 * ever having sent them (received while the server could not be reached); the app sends them
 * again when the server asks (MessagesExportRequested).
 */
function readInbox(file: string | undefined): InboxSms[] | undefined {
  if (!file) return undefined;
  const raw: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
  if (!Array.isArray(raw)) throw new Error(`${file}: expected a JSON array of { from, text, receivedAt }`);
  return raw.map((item, index) => {
    const { from, text, receivedAt } = (item ?? {}) as Record<string, unknown>;
    const date = new Date(String(receivedAt));
    if (typeof from !== 'string' || typeof text !== 'string' || Number.isNaN(date.getTime())) {
      throw new Error(`${file}: item ${index} needs from, text and receivedAt (RFC 3339)`);
    }
    return { from, text, receivedAt: date };
  });
}

program
  .command('run')
  .description(
    'Heartbeat, take messages and report them sent, then delivered or failed, until Ctrl-C. With --protocol smsgate: ' +
      'pair with --code (or reuse the saved registration), follow /events, pull, PATCH states and send signed webhooks.',
  )
  .requiredOption('--phone <e164>', 'the phone number')
  .option('--protocol <name>', PROTOCOL_HELP, protocol, 'simgate')
  .option('--code <digits>', 'smsgate: pairing code from the dashboard (first run only)', pairingCode)
  .option('--sims <n>', 'SIM cards the phone reports (smsgate: at pairing; simgate: with heartbeats)', number(1, 2), 1)
  .option('--failure-rate <rate>', 'share of messages that fail (0..1)', number(0, 1), 0)
  .option('--delay-ms <ms>', 'pause before each report', number(0, 600_000), 500)
  .option(
    '--hold-ms <ms>',
    'how long a message waits on the phone before it is sent (a cancel drops it)',
    number(0, 600_000),
    0,
  )
  .option('--wait <seconds>', 'simgate: long-poll wait of each claim', number(0, 30), 25)
  .option('--limit <n>', 'simgate: messages per claim', number(1, 100), 10)
  .option(
    '--heartbeat-s <seconds>',
    "seconds between heartbeats (smsgate: system:ping, default the server's ping.interval_seconds)",
    number(1, 3600),
    30,
  )
  .option('--battery <percent>', 'starting battery level', number(0, 100), 100)
  .option('--inbox <file>', 'smsgate: JSON [{ from, text, receivedAt }] the inbox holds unsent, sent again on export')
  .option(
    '--passphrase <text>',
    "smsgate: the app's encryption passphrase, which decrypts messages sent with encrypted: true (without it they fail, as in the app)",
  )
  .action(async (options: RunCommandOptions, command: Command) => {
    const controller = new AbortController();
    const stop = () => controller.abort();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    if (options.protocol === 'smsgate') {
      const client = await registeredApp(options.phone, options.code, options.sims);
      say(`running as the SMSGate app for ${options.phone} against ${client.baseUrl}; Ctrl-C to stop`);
      const pingSet = command.getOptionValueSource('heartbeatS') === 'cli';
      const stats = await runSmsGateApp(client, {
        phone: options.phone,
        failureRate: options.failureRate,
        delayMs: options.delayMs,
        holdMs: options.holdMs,
        pingIntervalMs: pingSet ? options.heartbeatS * 1000 : undefined,
        battery: options.battery,
        inbox: readInbox(options.inbox),
        passphrase: options.passphrase,
        signal: controller.signal,
        log: say,
      });
      say(`stopped: ${JSON.stringify(stats)}`);
      return;
    }
    const { client } = clientFor(options.phone);
    say(`running as ${options.phone} against ${client.baseUrl}; Ctrl-C to stop`);
    const stats = await runDevice(client, {
      phone: options.phone,
      failureRate: options.failureRate,
      delayMs: options.delayMs,
      holdMs: options.holdMs,
      waitSeconds: options.wait,
      limit: options.limit,
      heartbeatIntervalMs: options.heartbeatS * 1000,
      battery: options.battery,
      sims: command.getOptionValueSource('sims') === 'cli' ? options.sims : undefined,
      signal: controller.signal,
      log: say,
    });
    say(`stopped: ${JSON.stringify(stats)}`);
  });

program
  .command('inject')
  .description('Report an SMS the phone received (smsgate: an sms:received webhook, signed).')
  .requiredOption('--phone <e164>', 'the phone number')
  .requiredOption('--from <sender>', 'who sent it (E.164, short code or sender id)')
  .requiredOption('--text <content>', 'the message text')
  .option('--protocol <name>', PROTOCOL_HELP, protocol, 'simgate')
  .option('--id <device_message_id>', "simgate: the phone's own id of the SMS (retries with it are de-duplicated)")
  .action(async (options: { protocol: Protocol; phone: string; from: string; text: string; id?: string }) => {
    if (options.protocol === 'smsgate') {
      const client = savedApp(options.phone);
      if (!client) throw new Error(`No SMSGate registration in ${stateFile(options.phone)}: run with --code first.`);
      await client.settings();
      await client.webhooks();
      const payload = await inject(client, { phone: options.phone, from: options.from, text: options.text });
      say(`sms:received ${payload.messageId} from ${options.from} sent`);
      return;
    }
    const { client } = clientFor(options.phone);
    const message = await client.receive({ from: options.from, content: options.text, deviceMessageId: options.id });
    say(`received ${message.id} from ${message.from}`);
  });

program.parseAsync().catch((error: unknown) => {
  console.error(`[device] ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
