// `npm run migrate -w @invoicing/documents`: applies pending migrations, then exits.
import { migrateStandalone } from '@invoicing/service-kit';
import { documentsService } from './service.ts';

await migrateStandalone(documentsService);
