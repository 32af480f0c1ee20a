// `npm run migrate -w @invoicing/gateway`: applies pending migrations, then exits.
import { migrateStandalone } from '@invoicing/service-kit';
import { gatewayService } from './service.ts';

await migrateStandalone(gatewayService);
