// `npm run migrate -w @invoicing/subscriptions`: applies pending migrations, then exits.
import { migrateStandalone } from '@invoicing/service-kit';
import { subscriptionsService } from './service.ts';

await migrateStandalone(subscriptionsService);
