import { ensureDatabaseExists } from '@invoicing/service-kit';
import { loadMigrateConfig } from './config.ts';
import { openGatewayDatabase } from './database.ts';

/** Applies the gateway's pending migrations and exits (`npm run migrate -w @invoicing/gateway`). */
const { DATABASE_URL } = loadMigrateConfig();
await ensureDatabaseExists(DATABASE_URL);
const orm = await openGatewayDatabase(DATABASE_URL, 2);
await orm.close();
console.log('gateway: migrations applied');
