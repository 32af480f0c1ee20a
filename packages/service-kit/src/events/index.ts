export * from './event-bus.ts';
export * from './in-process-bus.ts';
export * from './jetstream-bus.ts';
export * from './outbox.ts';
export * from './event-envelope.ts';
export * from './connect-event-bus.ts';
