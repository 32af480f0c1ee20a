import type { Scope } from '@invoicing/contracts';
import type { Mode } from '@invoicing/service-kit/data-space';
import { createTestDatabase } from '@invoicing/testing';
import { afterAll, beforeAll } from 'vitest';
import { runAdminCommand } from '../admin/admin.service.ts';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { openGatewayDatabase } from '../database.ts';
import { startUpstreamRecorder, type UpstreamRecorder } from './upstream-recorder.ts';

export const INTERNAL_TOKEN = 'test-internal-token-0123456789abcdef';

export interface FixtureOptions {
  /** Settings beyond the database and the internal token, as environment variables. */
  env?: Record<string, string>;
}

/** A gateway on a fresh database, built with buildApp and driven with inject. */
export const startGateway = async ({ env = {} }: FixtureOptions = {}) => {
  const database = await createTestDatabase('gateway');
  const config = loadConfig({ DATABASE_URL: database.url, INTERNAL_TOKEN, LOG_LEVEL: 'silent', ...env });
  const orm = await openGatewayDatabase(database.url, 5);
  const app = await buildApp({ config, orm });
  await app.ready();

  /** A new API key (and its workspace, when the slug is new), as the operator command makes it. */
  const createKey = async (scopes: Scope[], workspace = 'acme', mode: Mode = 'live') => {
    const [line] = await runAdminCommand(orm, { name: 'keys create', workspace, scopes, mode });
    return line as { workspace_id: string; key_id: string; mode: Mode; key: string };
  };

  return {
    app,
    orm,
    databaseUrl: database.url,
    createKey,
    close: async () => {
      await app.close();
      await orm.close();
      await database.drop();
    },
  };
};

export type GatewayFixture = Awaited<ReturnType<typeof startGateway>>;

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/**
 * For a test file: a gateway in front of an upstream recorder, started before its tests and
 * stopped after them. `env` gets the recorder's URL, to point the services under test at it.
 */
export const useGatewayBehindRecorder = (env: (upstreamUrl: string) => Record<string, string> | Promise<Record<string, string>>) => {
  const fixture = {} as { upstream: UpstreamRecorder; gateway: GatewayFixture };
  beforeAll(async () => {
    fixture.upstream = await startUpstreamRecorder();
    fixture.gateway = await startGateway({ env: await env(fixture.upstream.url) });
  });
  afterAll(async () => {
    await fixture.gateway?.close();
    await fixture.upstream?.close();
  });
  return fixture;
};
