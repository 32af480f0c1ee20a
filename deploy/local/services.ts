import type { ServiceDefinition } from '@invoicing/service-kit';
import { billingService } from '../../services/billing/src/service.ts';
import { catalogService } from '../../services/catalog/src/service.ts';
import { documentsService } from '../../services/documents/src/service.ts';
import { gatewayService } from '../../services/gateway/src/service.ts';
import { notificationsService } from '../../services/notifications/src/service.ts';
import { subscriptionsService } from '../../services/subscriptions/src/service.ts';

export interface PlatformService {
  definition: ServiceDefinition;
  /**
   * A service behind the gateway listens on SERVICE_PORT_BASE + this under `npm start`: from the
   * default base 3100, its own default PORT, which the gateway's default URLs name. None: the
   * gateway, on PORT.
   */
  portOffset?: number;
}

/**
 * Every service of the platform, in start order: the gateway last, so the services it forwards to
 * listen before it does. `npm start`, `npm run migrate` and the tests that start every service as
 * its own process read this list; a new service is added here.
 */
export const SERVICES = [
  { definition: catalogService, portOffset: 1 },
  { definition: billingService, portOffset: 2 },
  { definition: documentsService, portOffset: 3 },
  { definition: notificationsService, portOffset: 4 },
  { definition: subscriptionsService, portOffset: 5 },
  { definition: gatewayService },
] as const satisfies readonly PlatformService[];

/** The services' names in start order, the gateway last. */
export const SERVICE_NAMES: readonly string[] = SERVICES.map(({ definition }) => definition.name);

/** Each service's port under `npm start`: the gateway on `gatewayPort`, the others on `base` + their offset. */
export const localPortOf =
  (base: number, gatewayPort: number) =>
  (name: string): number => {
    const service = SERVICES.find((candidate: PlatformService) => candidate.definition.name === name) as PlatformService | undefined;
    if (!service) throw new Error(`No service named ${name} in deploy/local/services.ts`);
    return service.portOffset === undefined ? gatewayPort : base + service.portOffset;
  };
