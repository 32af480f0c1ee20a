// `npm run migrate`: applies every service's migrations to the database `npm start` uses.
import { ConfigError, ensureDatabaseExists } from '@invoicing/service-kit';
import { loadDatabaseSettings } from './config.ts';
import { openLocalDatabase } from './local-database.ts';
import { SERVICE_NAMES, SERVICES } from './services.ts';

const main = async (): Promise<number> => {
  const { settings, inherited } = loadDatabaseSettings();
  const database = await openLocalDatabase(settings, inherited);
  try {
    await ensureDatabaseExists(database.url);
    // One after another: each service owns its own schema, and the output stays readable.
    for (const { definition } of SERVICES) {
      await definition.migrate({ ...inherited, DATABASE_URL: database.url });
      process.stdout.write(`${definition.name}: migrations applied\n`);
    }
    process.stdout.write(`Migrations applied for ${SERVICE_NAMES.join(', ')} (database: ${database.description}).\n`);
    return 0;
  } finally {
    await database.stop();
  }
};

try {
  process.exit(await main());
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`npm run migrate: ${error.message}\n`);
  process.exit(1);
}
