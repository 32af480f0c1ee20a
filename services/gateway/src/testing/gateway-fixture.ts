import type { Scope } from '@invoicing/contracts';
import { createTestDatabase } from '@invoicing/testing';
import { runAdminCommand } from '../admin/admin.service.ts';
import { buildApp } from '../app.ts';
import { loadConfig } from '../config.ts';
import { openGatewayDatabase } from '../database.ts';

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
  const createKey = async (scopes: Scope[], workspace = 'acme') => {
    const [line] = await runAdminCommand(orm, { name: 'keys create', workspace, scopes });
    return line as { workspace_id: string; key_id: string; key: string };
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
