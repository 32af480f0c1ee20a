// `npm run migrate -w @invoicing/notifications`: applies pending migrations, then exits.
import { ensureDatabaseExists, migrateDatabase } from '@invoicing/service-kit';
import { loadMigrateConfig } from './config.ts';
import { NOTIFICATIONS_SCHEMA, openNotificationsDatabase } from './database.ts';

const config = loadMigrateConfig();
await ensureDatabaseExists(config.DATABASE_URL);
const orm = await openNotificationsDatabase(config.DATABASE_URL, 1);
try {
  await migrateDatabase(orm, NOTIFICATIONS_SCHEMA, config.DATABASE_URL);
  console.log(`notifications: migrations applied to schema "${NOTIFICATIONS_SCHEMA}"`);
} finally {
  await orm.close();
}
