import { z } from 'zod';
import type { EventBus } from './event-bus.ts';
import { createInProcessBus } from './in-process-bus.ts';
import { connectJetStreamBus } from './jetstream-bus.ts';
import { NATS_PREFIX_PATTERN } from './nats-names.ts';

/** `nats://host:port`, `tls://host:port` or a bare `host:port`, as the NATS client takes it. */
const isNatsServerUrl = (value: string): boolean => {
  if (/\s|,/.test(value)) return false;
  const withScheme = value.includes('://') ? value : `nats://${value}`;
  if (!URL.canParse(withScheme)) return false;
  const url = new URL(withScheme);
  return ['nats:', 'tls:'].includes(url.protocol) && url.hostname !== '' && (url.pathname === '' || url.pathname === '/') && url.search === '' && url.hash === '';
};

/** Event-bus settings every service that publishes or consumes events has. */
export const eventBusSettings = {
  // A wrong address is a mistake to fix, so it fails the start; an unreachable one is waited for.
  NATS_URL: z
    .string()
    .refine((value) => value === '' || isNatsServerUrl(value), 'must be a NATS server address such as nats://127.0.0.1:4222 (nats:// or tls://, one server)')
    .optional()
    .describe('NATS server with JetStream; unset: the in-process bus (single-process start).'),
  NATS_PREFIX: z
    .string()
    .max(32, 'must be at most 32 characters')
    .regex(NATS_PREFIX_PATTERN, 'may hold only letters, digits, - and _ (it starts stream, consumer and subject names on NATS)')
    .default('')
    .describe('Keeps deployments that share a NATS server apart: put before stream, durable consumer and subject names; empty: the names unchanged.'),
  EVENTS_STREAM_REPLICAS: z.coerce.number().int().min(1).max(5).default(1),
  EVENTS_STREAM_MAX_AGE_HOURS: z.coerce.number().int().min(1).default(24 * 7),
};
const EventBusSettings = z.object(eventBusSettings);
export type EventBusSettings = z.infer<typeof EventBusSettings>;

/**
 * JetStream when NATS_URL is set, else an in-process bus (which only reaches consumers in this
 * process and has no use for NATS_PREFIX). Resolves at once either way: JetStream connects in the
 * background and keeps trying while NATS is unreachable, reporting through `onError`.
 */
export const connectEventBus = (
  settings: EventBusSettings,
  name: string,
  onError: (error: unknown, context: string) => void,
  log?: (message: string) => void,
): Promise<EventBus> =>
  settings.NATS_URL
    ? connectJetStreamBus({
        url: settings.NATS_URL,
        name,
        replicas: settings.EVENTS_STREAM_REPLICAS,
        maxAgeMs: settings.EVENTS_STREAM_MAX_AGE_HOURS * 3600_000,
        prefix: settings.NATS_PREFIX,
        onError,
        log,
      })
    : Promise.resolve(createInProcessBus());
