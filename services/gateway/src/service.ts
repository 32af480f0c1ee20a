import { applyMigrations, loggerOptions, type ServiceDefinition } from '@invoicing/service-kit';
import { buildApp } from './app.ts';
import { loadConfig, loadMigrateConfig, type GatewayConfig } from './config.ts';
import { openGatewayDatabase, openGatewayOrm, prepareGatewayDatabase, SCHEMA } from './database.ts';

/** The gateway as its hosts run it: alone (`main.ts`) or in front of the other services (`npm start`). */
export const gatewayService: ServiceDefinition<GatewayConfig> = {
  name: 'gateway',
  usesEvents: false,
  loadConfig,
  create: async (config) => {
    const orm = await openGatewayOrm(config.DATABASE_URL, config.DATABASE_POOL_SIZE);
    const app = await buildApp({ config, orm, logger: loggerOptions('gateway', config.LOG_LEVEL) });
    app.addHook('onClose', () => orm.close());
    return { app, prepareDatabase: () => prepareGatewayDatabase(orm, config.DATABASE_URL), startWorkers: async () => {} };
  },
  migrate: (env) => applyMigrations(loadMigrateConfig(env).DATABASE_URL, SCHEMA, openGatewayDatabase),
};
