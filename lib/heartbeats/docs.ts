export const RECORD_HEARTBEAT =
  'Takes an account key (any phone of the account) or a device key (its own number only; another ' +
  'number answers 403 `FORBIDDEN`). Each change between online and offline emits `phone.online` / ' +
  '`phone.offline`. A phone with no heartbeat for `HEARTBEAT_TIMEOUT_S` (default 300) is marked offline.';
