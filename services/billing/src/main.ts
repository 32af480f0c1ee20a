import { runStandalone } from '@invoicing/service-kit';
import { billingService } from './service.ts';

await runStandalone(billingService);
