import path from 'node:path';
import { defineConfig } from '@playwright/test';
import { createTestCertificates } from './test/fixtures/tls/receiver';

// A throwaway CA for the specs' local HTTPS webhook receivers, made once by the runner (workers load
// this file again and inherit the directory); the server trusts it through NODE_EXTRA_CA_CERTS.
process.env.E2E_TLS_DIR ??= createTestCertificates().dir;

const port = Number(process.env.E2E_PORT ?? 3107);
const baseURL = `http://127.0.0.1:${port}`;

export default defineConfig({
  testDir: './e2e',
  timeout: 30_000,
  fullyParallel: false,
  workers: 1,
  reporter: process.env.CI ? 'list' : 'line',
  use: {
    baseURL,
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
  webServer: {
    // A production build on a throwaway embedded database.
    // `npm start`'s own server (scripts/start.mjs), which tells the app each client's socket address.
    // `npm test` builds once before Vitest (E2E_PREBUILT); on its own, Playwright builds first.
    command: `${process.env.E2E_PREBUILT ? '' : 'node node_modules/next/dist/bin/next build && '}node scripts/start.mjs`,
    url: `${baseURL}/api/v1/openapi.json`,
    timeout: 240_000,
    reuseExistingServer: false,
    env: {
      DATA_DIR: `.data/e2e-${Date.now()}`,
      DATABASE_URL: '',
      LOG_LEVEL: 'warn',
      // The data settings spec waits for the retention sweep to purge a message it made old.
      RETENTION_SWEEP_INTERVAL_S: '2',
      // Alerts are raised and resolved within seconds, not the default minute.
      ALERT_EVALUATION_INTERVAL_S: '5',
      NODE_EXTRA_CA_CERTS: path.join(process.env.E2E_TLS_DIR, 'ca.pem'),
      NEXT_DIST_DIR: '.next-e2e',
      HOST: '127.0.0.1',
      PORT: String(port),
    },
  },
});
