// `npm run db:migrate`: applies the committed migrations to the configured database and exits.
import { closeDatabase, getDatabase, locateDatabase } from '../db';
import { assertConfig, config } from '../lib/config';

try {
  assertConfig();
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
locateDatabase(config.database);
const handle = await getDatabase();
console.log(`migrations applied (${handle.driver.kind})`);
await closeDatabase();
