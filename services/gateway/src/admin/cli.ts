import { connectLocalDatabase, ensureDatabaseExists, type LocalPostgres, type Orm } from '@invoicing/service-kit';
import { loadAdminConfig } from '../config.ts';
import { openGatewayDatabase } from '../database.ts';
import { parseAdminCommand, USAGE, UsageError } from './admin-command.ts';
import { AdminError, runAdminCommand } from './admin.service.ts';

/**
 * The operator command: `npm run --silent admin -- keys create --workspace <slug> --scopes all`.
 * Works on the database `npm start` uses, whether or not it runs: DATABASE_URL, else the
 * embedded PostgreSQL under .data/ (started for the command and stopped again if nothing else
 * runs it). stdout carries only the JSON result lines, written at once at the end; errors go to stderr.
 */
const main = async (argv: readonly string[]): Promise<number> => {
  if (argv.length === 0 || argv.includes('--help') || argv.includes('-h')) {
    process.stderr.write(`${USAGE}\n`);
    return argv.length === 0 ? 2 : 0;
  }
  let database: LocalPostgres | undefined;
  let orm: Orm | undefined;
  try {
    const command = parseAdminCommand(argv);
    database = await connectLocalDatabase(loadAdminConfig());
    await ensureDatabaseExists(database.url);
    orm = await openGatewayDatabase(database.url, 2);
    const lines = await runAdminCommand(orm, command);
    if (lines.length > 0) process.stdout.write(`${lines.map((line) => JSON.stringify(line)).join('\n')}\n`);
    return 0;
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`admin: ${error.message}\n\n${USAGE}\n`);
      return 2;
    }
    process.stderr.write(`admin: ${error instanceof AdminError ? error.message : `failed: ${(error as Error).message}`}\n`);
    return 1;
  } finally {
    await orm?.close();
    await database?.stop();
  }
};

process.exitCode = await main(process.argv.slice(2));
