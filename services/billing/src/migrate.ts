// `npm run migrate -w @invoicing/billing`: applies billing's pending migrations, then exits.
import { ensureDatabaseExists, migrateDatabase } from '@invoicing/service-kit';
import { loadMigrateConfig } from './config.ts';
import { BILLING_SCHEMA, openBillingDatabase } from './database.ts';

const config = loadMigrateConfig();
await ensureDatabaseExists(config.DATABASE_URL);
const orm = await openBillingDatabase(config.DATABASE_URL, 1);
try {
  await migrateDatabase(orm, BILLING_SCHEMA, config.DATABASE_URL);
  console.log(`billing: migrations applied to schema "${BILLING_SCHEMA}"`);
} finally {
  await orm.close();
}
