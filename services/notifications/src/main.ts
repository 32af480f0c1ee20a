import { runStandalone } from '@invoicing/service-kit';
import { notificationsService } from './service.ts';

await runStandalone(notificationsService);
