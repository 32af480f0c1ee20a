// `npm run migrate -w @invoicing/documents`: applies documents' pending migrations, then exits.
import { ensureDatabaseExists, migrateDatabase } from '@invoicing/service-kit';
import { loadMigrateConfig } from './config.ts';
import { DOCUMENTS_SCHEMA, openDocumentsDatabase } from './database.ts';

const config = loadMigrateConfig();
await ensureDatabaseExists(config.DATABASE_URL);
const orm = await openDocumentsDatabase(config.DATABASE_URL, 1);
try {
  await migrateDatabase(orm, DOCUMENTS_SCHEMA, config.DATABASE_URL);
  console.log(`documents: migrations applied to schema "${DOCUMENTS_SCHEMA}"`);
} finally {
  await orm.close();
}
