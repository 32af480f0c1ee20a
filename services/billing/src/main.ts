import { connectEventBus, runService } from '@invoicing/service-kit';
import { loadConfig } from './config.ts';
import { createBillingService, type BillingService } from './service.ts';

const config = loadConfig();
let service: BillingService | undefined;
const bus = await connectEventBus(config, 'billing', (error, context) => service?.app.log.error({ err: error, context }, 'event bus'));
service = await createBillingService(config, { bus });
await service.start();
await runService({ app: service.app, host: config.HOST, port: config.PORT, onClosed: () => bus.close() });
