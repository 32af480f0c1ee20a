// `npm run migrate`: applies every service's migrations to the database `npm start` uses.
import { ConfigError, ensureDatabaseExists } from '@invoicing/service-kit';
import { loadDatabaseSettings } from './config.ts';
import { loadServiceDefinition } from './in-process-host.ts';
import { openLocalDatabase } from './local-database.ts';
import { discoverServices } from './platform.ts';

const main = async (): Promise<number> => {
  const { settings, inherited } = loadDatabaseSettings();
  const names = discoverServices('service.ts');
  const database = await openLocalDatabase(settings, inherited);
  try {
    await ensureDatabaseExists(database.url);
    // One after another: each service owns its own schema, and the output stays readable.
    for (const name of names) {
      const definition = await loadServiceDefinition(name);
      await definition.migrate({ ...inherited, DATABASE_URL: database.url });
      process.stdout.write(`${name}: migrations applied\n`);
    }
    process.stdout.write(`Migrations applied for ${names.join(', ') || 'no service'} (database: ${database.description}).\n`);
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
