import { ConfigError, ensureDatabaseExists, loggerOptions, runService } from '@invoicing/service-kit';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { openGatewayDatabase } from './database.ts';

const config = (() => {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`gateway: ${error.message}`);
    process.exit(1);
  }
})();
await ensureDatabaseExists(config.DATABASE_URL);
const orm = await openGatewayDatabase(config.DATABASE_URL, config.DATABASE_POOL_SIZE);
const app = await buildApp({ config, orm, logger: loggerOptions('gateway', config.LOG_LEVEL) });
app.addHook('onClose', () => orm.close());
await runService({ app, host: config.HOST, port: config.PORT });
