import path from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  resolve: { alias: { '@': path.resolve(__dirname) } },
  test: {
    include: ['**/*.test.ts'],
    exclude: ['node_modules/**', '.next/**', '.next-e2e/**', '.next-*/**', '.data/**', 'e2e/**', 'dist/**'],
    globalSetup: ['./test/global-setup.ts'],
    // What every entry point does: the adapters fill the domain's registries (lib/protocols/register.ts).
    setupFiles: ['./lib/protocols/register.ts'],
    // The Citus mode (TEST_CITUS=1) runs three PostgreSQL clusters on the same cores: test/database.ts.
    testTimeout: process.env.TEST_CITUS === '1' ? 120_000 : 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // The per-key rate limit is off unless a test turns it on: suites make hundreds of calls with one key.
    // SIMGATE_PEER_TOKEN: what npm start's server sets, so tests can say which socket a request came from (test/http.ts).
    env: {
      LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
      API_KEY_RATE_LIMIT: '0',
      SIMGATE_PEER_TOKEN: 'vitest-peer',
      SIMGATE_CHECK_ANSWERS: '1',
      // The Citus mode (test/database.ts): the coordinator of scripts/citus-cluster.sh unless named.
      ...(process.env.TEST_CITUS === '1'
        ? { TEST_DATABASE_URL: process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5440/postgres' }
        : {}),
    },
  },
});
