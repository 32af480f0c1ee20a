// `npm run migrate -w @invoicing/notifications`: applies pending migrations, then exits.
import { migrateStandalone } from '@invoicing/service-kit';
import { notificationsService } from './service.ts';

await migrateStandalone(notificationsService);
