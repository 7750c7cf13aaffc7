/**
 * A simulated Android phone for Simgate, over HTTP only:
 *   npm run device -- register --phone +14155550100 --email me@example.com
 *   npm run device -- run --phone +14155550100 --failure-rate 0.1
 *   npm run device -- inject --phone +14155550100 --from +14155550123 --text "Hello"
 */
import { Command, InvalidArgumentError } from 'commander';
import { activateDevice } from '@/lib/device-sim/activate';
import { DeviceClient } from '@/lib/device-sim/client';
import { runDevice } from '@/lib/device-sim/run';
import { defaultStatePath, loadState, saveState } from '@/lib/device-sim/state';

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
  return { client: new DeviceClient({ baseUrl: globals().baseUrl, deviceKey: state.deviceKey }), file };
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

program
  .command('run')
  .description('Heartbeat, claim messages and report them sent, then delivered or failed, until Ctrl-C.')
  .requiredOption('--phone <e164>', 'the phone number')
  .option('--failure-rate <rate>', 'share of messages that fail (0..1)', number(0, 1), 0)
  .option('--delay-ms <ms>', 'pause before each report', number(0, 600_000), 500)
  .option('--wait <seconds>', 'long-poll wait of each claim', number(0, 30), 25)
  .option('--limit <n>', 'messages per claim', number(1, 100), 10)
  .option('--heartbeat-s <seconds>', 'seconds between heartbeats', number(1, 3600), 30)
  .option('--battery <percent>', 'starting battery level', number(0, 100), 100)
  .action(
    async (options: {
      phone: string;
      failureRate: number;
      delayMs: number;
      wait: number;
      limit: number;
      heartbeatS: number;
      battery: number;
    }) => {
      const { client } = clientFor(options.phone);
      const controller = new AbortController();
      const stop = () => controller.abort();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      say(`running as ${options.phone} against ${client.baseUrl}; Ctrl-C to stop`);
      const stats = await runDevice(client, {
        phone: options.phone,
        failureRate: options.failureRate,
        delayMs: options.delayMs,
        waitSeconds: options.wait,
        limit: options.limit,
        heartbeatIntervalMs: options.heartbeatS * 1000,
        battery: options.battery,
        signal: controller.signal,
        log: say,
      });
      say(`stopped: ${JSON.stringify(stats)}`);
    },
  );

program
  .command('inject')
  .description('Report an SMS the phone received.')
  .requiredOption('--phone <e164>', 'the phone number')
  .requiredOption('--from <sender>', 'who sent it (E.164, short code or sender id)')
  .requiredOption('--text <content>', 'the message text')
  .option('--id <device_message_id>', "the phone's own id of the SMS (retries with it are de-duplicated)")
  .action(async (options: { phone: string; from: string; text: string; id?: string }) => {
    const { client } = clientFor(options.phone);
    const message = await client.receive({ from: options.from, content: options.text, deviceMessageId: options.id });
    say(`received ${message.id} from ${message.from}`);
  });

program.parseAsync().catch((error: unknown) => {
  console.error(`[device] ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
