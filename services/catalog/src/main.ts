import { runStandalone } from '@invoicing/service-kit';
import { catalogService } from './service.ts';

await runStandalone(catalogService);
