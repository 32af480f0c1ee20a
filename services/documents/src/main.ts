import { connectEventBus, runService } from '@invoicing/service-kit';
import { loadConfig } from './config.ts';
import { createDocumentsService, type DocumentsService } from './service.ts';

const config = loadConfig();
let service: DocumentsService | undefined;
const bus = await connectEventBus(config, 'documents', (error, context) => service?.app.log.error({ err: error, context }, 'event bus'));
service = await createDocumentsService(config, { bus });
await service.start();
await runService({ app: service.app, host: config.HOST, port: config.PORT, onClosed: () => bus.close() });
