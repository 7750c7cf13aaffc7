// `npm run db:migrate`: applies the committed migrations to the configured database and exits.
import { closeDatabase, getDatabase } from '../db';

const handle = await getDatabase();
console.log(`migrations applied (${handle.driver.kind})`);
await closeDatabase();
