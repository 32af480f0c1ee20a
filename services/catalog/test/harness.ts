export { expectProblem } from '@invoicing/testing';
import { randomUUID } from 'node:crypto';
import { migrateDatabase } from '@invoicing/service-kit';
import { createTestDatabase } from '@invoicing/testing';
import { expect } from 'vitest';
import { buildApp } from '../src/app.ts';
import { CATALOG_SCHEMA, openCatalogDatabase } from '../src/database.ts';

export const INTERNAL_TOKEN = 'catalog-test-internal-token-0123456789';

type App = ReturnType<typeof buildApp>;
type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';
export type Reply = Awaited<ReturnType<App['inject']>>;

/** A clock that runs normally until frozen, so tests can give many rows one `created`. */
export const controllableClock = () => {
  let frozenAt: Date | undefined;
  return {
    now: (): Date => frozenAt ?? new Date(),
    freeze: (at: Date) => {
      frozenAt = at;
    },
    release: () => {
      frozenAt = undefined;
    },
  };
};

/** A catalog app on its own fresh, migrated database, reached with `inject` as the gateway would. */
export const startCatalog = async (label: string, poolSize = 8) => {
  const database = await createTestDatabase(label);
  const orm = await openCatalogDatabase(database.url, poolSize);
  await migrateDatabase(orm, CATALOG_SCHEMA, database.url);
  const clock = controllableClock();
  // Billing's test clocks, as billing would answer for them: a test adds the ones that exist.
  const testClocks = new Set<string>();
  const app = buildApp({ orm, internalToken: INTERNAL_TOKEN, clock, testClocks: { exists: async (_caller, id) => testClocks.has(id) } });
  await app.ready();
  return {
    app,
    orm,
    clock,
    testClocks,
    /** A client acting for a new workspace (or the given one), with the headers the gateway sets. */
    workspace: (workspaceId: string = randomUUID()) => workspaceClient(app, workspaceId),
    close: async () => {
      await app.close();
      await orm.close();
      await database.drop();
    },
  };
};
export type Catalog = Awaited<ReturnType<typeof startCatalog>>;

export const gatewayHeaders = (workspaceId: string) => ({
  'x-internal-token': INTERNAL_TOKEN,
  'x-workspace-id': workspaceId,
  'x-api-key-id': 'key_test',
});

const workspaceClient = (app: App, workspaceId: string) => {
  const headers = gatewayHeaders(workspaceId);
  const send = (method: Method, url: string, body?: unknown) =>
    app.inject({ method, url, headers, ...(body === undefined ? {} : { payload: body as object }) });
  return {
    workspaceId,
    headers,
    get: (url: string) => send('GET', url),
    post: (url: string, body: unknown) => send('POST', url, body),
    patch: (url: string, body: unknown) => send('PATCH', url, body),
    delete: (url: string) => send('DELETE', url),
    /** The `data` of a 2xx reply; fails the test with the problem otherwise. */
    data: async <T = Record<string, unknown>>(reply: Reply | Promise<Reply>): Promise<T> => {
      const settled = await reply;
      expect(settled.statusCode, settled.body).toBeLessThan(300);
      return settled.json<{ data: T }>().data;
    },
  };
};
export type WorkspaceClient = ReturnType<typeof workspaceClient>;

/** Every row a list endpoint returns for this client, following `next_cursor` to the end. */
export const listAll = async <T = Record<string, unknown>>(client: WorkspaceClient, path: string): Promise<T[]> => {
  const rows: T[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 1000; page += 1) {
    const separator = path.includes('?') ? '&' : '?';
    const reply = await client.get(`${path}${separator}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    expect(reply.statusCode, reply.body).toBe(200);
    const body = reply.json<{ data: T[]; next_cursor: string | null }>();
    rows.push(...body.data);
    cursor = body.next_cursor;
    if (!cursor) return rows;
  }
  throw new Error(`${path} did not end within 1000 pages`);
};
