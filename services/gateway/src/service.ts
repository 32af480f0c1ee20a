import { defineService } from '@invoicing/service-kit';
import { buildApp, gatewayIdempotency, idempotencyPurge } from './app.ts';
import { loadConfig } from './config.ts';
import { openGatewayOrm, SCHEMA } from './database.ts';

/** The gateway as its hosts run it: alone (`main.ts`) or in front of the other services (`npm start`). */
export const gatewayService = defineService({
  name: 'gateway',
  loadConfig,
  database: { schema: SCHEMA, open: openGatewayOrm },
  build: async ({ config, orm, logger, checkReadiness }) => {
    // Renewal errors can only come once requests run, when `app` is there to log them.
    const idempotency = gatewayIdempotency(config, orm, { warn: (...args: Parameters<typeof app.log.warn>) => app.log.warn(...args) });
    const app = await buildApp({ config, orm, logger, checkReadiness, idempotency });
    return { app, workers: [idempotencyPurge(idempotency, app.log)] };
  },
});
