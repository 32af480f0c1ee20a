// `npm run migrate -w @invoicing/billing`: applies pending migrations, then exits.
import { migrateStandalone } from '@invoicing/service-kit';
import { billingService } from './service.ts';

await migrateStandalone(billingService);
