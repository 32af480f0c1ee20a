import { runStandalone } from '@invoicing/service-kit';
import { documentsService } from './service.ts';

await runStandalone(documentsService);
