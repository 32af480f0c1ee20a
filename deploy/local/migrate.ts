// `npm run migrate`: applies every service's migrations to the database `npm start` uses.
import { ConfigError, ensureDatabaseExists } from '@invoicing/service-kit';
import { loadDatabaseSettings } from './config.ts';
import { openLocalDatabase } from './local-database.ts';
import { discoverServices, generateInternalToken } from './platform.ts';
import { ChildScript, describeExit, prefixedSink } from './service-process.ts';

const main = async (): Promise<number> => {
  const { settings, inherited } = loadDatabaseSettings();
  const services = discoverServices('migrate.ts');
  const database = await openLocalDatabase(settings, inherited);
  try {
    await ensureDatabaseExists(database.url);
    const sink = prefixedSink(Math.max(0, ...services.map((name) => name.length)));
    // One after another: each service owns its own schema, and the output stays readable.
    for (const name of services) {
      const env = { ...inherited, DATABASE_URL: database.url, INTERNAL_TOKEN: generateInternalToken() };
      // In our process group: a Ctrl-C stops a migration run as a whole.
      const child = new ChildScript({ name, script: `services/${name}/src/migrate.ts`, env, sink, detached: false });
      const exit = await child.exited;
      if (exit.code !== 0) {
        process.stderr.write(`npm run migrate: ${name} failed with ${describeExit(exit)}.\n`);
        return 1;
      }
    }
    process.stdout.write(`Migrations applied for ${services.join(', ') || 'no service'} (database: ${database.description}).\n`);
    return 0;
  } finally {
    await database.stop();
  }
};

try {
  process.exitCode = await main();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  process.stderr.write(`npm run migrate: ${error.message}\n`);
  process.exitCode = 1;
}
