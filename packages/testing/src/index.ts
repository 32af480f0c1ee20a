export * from './free-port.ts';
export * from './nats-server.ts';
export * from './postgres-server.ts';
export * from './redis-server.ts';
export * from './test-database.ts';
export * from './expect-problem.ts';
export * from './tcp-proxy.ts';
