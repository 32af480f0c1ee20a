import { ConfigError, connectEventBus, runService } from '@invoicing/service-kit';
import { loadConfig } from './config.ts';
import { createNotificationsService, type NotificationsService } from './service.ts';

const config = (() => {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`notifications: ${error.message}`);
    process.exit(1);
  }
})();
let service: NotificationsService | undefined;
const bus = await connectEventBus(config, 'notifications', (error, context) => service?.app.log.error({ err: error, context }, 'event bus'));
service = await createNotificationsService(config, { bus });
await service.start();
await runService({ app: service.app, host: config.HOST, port: config.PORT, onClosed: () => bus.close() });
