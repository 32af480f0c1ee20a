import { runStandalone } from '@invoicing/service-kit';
import { gatewayService } from './service.ts';

await runStandalone(gatewayService);
