import { z } from 'zod';
import type { EventBus } from './event-bus.ts';
import { createInProcessBus } from './in-process-bus.ts';
import { connectJetStreamBus } from './jetstream-bus.ts';

/** Event-bus settings every service that publishes or consumes events has. */
export const eventBusSettings = {
  NATS_URL: z.string().optional().describe('NATS server with JetStream; unset: the in-process bus (single-process start).'),
  EVENTS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  EVENTS_STREAM_MAX_AGE_HOURS: z.coerce.number().int().min(1).default(24 * 7),
};
const EventBusSettings = z.object(eventBusSettings);
export type EventBusSettings = z.infer<typeof EventBusSettings>;

/** JetStream when NATS_URL is set, else an in-process bus (which only reaches consumers in this process). */
export const connectEventBus = (
  settings: EventBusSettings,
  name: string,
  onError: (error: unknown, context: string) => void,
): Promise<EventBus> =>
  settings.NATS_URL
    ? connectJetStreamBus({
        url: settings.NATS_URL,
        name,
        replicas: settings.EVENTS_STREAM_REPLICAS,
        maxAgeMs: settings.EVENTS_STREAM_MAX_AGE_HOURS * 3600_000,
        onError,
      })
    : Promise.resolve(createInProcessBus());
