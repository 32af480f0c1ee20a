// `npm run migrate -w @invoicing/catalog`: applies pending migrations, then exits.
import { migrateStandalone } from '@invoicing/service-kit';
import { catalogService } from './service.ts';

await migrateStandalone(catalogService);
