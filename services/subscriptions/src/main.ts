import { runStandalone } from '@invoicing/service-kit';
import { subscriptionsService } from './service.ts';

await runStandalone(subscriptionsService);
