import fs from 'node:fs';
import path from 'node:path';

/** What a simulated phone remembers between runs, as a real app keeps its key in storage. */
export type DeviceState = SimgateDeviceState | SmsGateDeviceState;

export type SimgateDeviceState = {
  protocol?: 'simgate';
  baseUrl: string;
  phone: string;
  deviceId: string;
  deviceKey: string;
  accountId?: string;
  email?: string;
  apiKey?: string;
};

/** The SMSGate app's registration (`registrationInfo`) and its webhook signing key. */
export type SmsGateDeviceState = {
  protocol: 'smsgate';
  /** The app's server address, `…/api/mobile/v1`. */
  baseUrl: string;
  phone: string;
  deviceId: string;
  token: string;
  signingKey?: string;
};

export function defaultStatePath(phone: string): string {
  return path.join(process.cwd(), '.data', `device-${phone.replace(/[^0-9]/g, '')}.json`);
}

export function loadState(file: string): DeviceState {
  const state = findState(file);
  if (!state) throw new Error(`No device state at ${file}: run \`register\` first.`);
  return state;
}

export function findState(file: string): DeviceState | undefined {
  if (!fs.existsSync(file)) return undefined;
  return JSON.parse(fs.readFileSync(file, 'utf8')) as DeviceState;
}

export function saveState(file: string, state: DeviceState): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  // The device key is a credential: readable by its owner only.
  fs.writeFileSync(file, `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 });
}
