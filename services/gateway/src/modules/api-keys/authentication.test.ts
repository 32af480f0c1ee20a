import { parsePublicId } from '@invoicing/contracts';
import { dataSpaceOf } from '@invoicing/service-kit/data-space';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../admin/admin.service.ts';
import { bearer, useGatewayBehindRecorder } from '../../testing/gateway-fixture.ts';

const fixture = useGatewayBehindRecorder((upstreamUrl) => ({ CATALOG_URL: upstreamUrl }));

const listCustomers = (headers: Record<string, string>) => fixture.gateway.app.inject({ method: 'GET', url: '/api/v1/customers', headers });

describe('authentication', () => {
  it('lets a valid key with the scope through to the service', async () => {
    const { key } = await fixture.gateway.createKey(['clients:read']);
    const response = await listCustomers(bearer(key));
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ data: { method: 'GET', url: '/api/v1/customers' } });
  });

  it.each([
    ['no Authorization header', {}],
    ['an empty Authorization header', { authorization: '' }],
    ['another scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['Bearer without a key', { authorization: 'Bearer ' }],
    ['a key of another shape', { authorization: 'Bearer sk_live_123' }],
    ['a well-formed key that was never issued', { authorization: `Bearer inv_live_${'A'.repeat(65)}` }],
  ])('answers 401 unauthenticated to %s, and forwards nothing', async (_name, headers) => {
    const before = fixture.upstream.received.length;
    const response = await listCustomers(headers);

    expect(response.statusCode).toBe(401);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ status: 401, code: 'unauthenticated', request_id: response.headers['x-request-id'] });
    expect(fixture.upstream.received.length).toBe(before);
  });

  it('answers 401 to a real key id with a wrong secret', async () => {
    const { key } = await fixture.gateway.createKey(['clients:read']);
    const last = key.at(-1) === 'a' ? 'b' : 'a';
    const response = await listCustomers(bearer(key.slice(0, -1) + last));
    expect(response.statusCode).toBe(401);
    expect(response.json().code).toBe('unauthenticated');
  });

  it('accepts the scheme in any letter case', async () => {
    const { key } = await fixture.gateway.createKey(['clients:read']);
    const response = await listCustomers({ authorization: `bearer ${key}` });
    expect(response.statusCode).toBe(200);
  });

  it('answers 403 forbidden to a key without the scope of the operation, and forwards nothing', async () => {
    const { key } = await fixture.gateway.createKey(['products:read', 'clients:write']);
    const before = fixture.upstream.received.length;
    const response = await listCustomers(bearer(key));

    expect(response.statusCode).toBe(403);
    expect(response.json()).toMatchObject({ code: 'forbidden', detail: expect.stringContaining('clients:read') });
    expect(fixture.upstream.received.length).toBe(before);
  });

  it('refuses a revoked key at once, although the key was cached by a request just before', async () => {
    const { key, key_id } = await fixture.gateway.createKey(['clients:read']);
    expect((await listCustomers(bearer(key))).statusCode).toBe(200);

    await runAdminCommand(fixture.gateway.orm, { name: 'keys revoke', keyId: parsePublicId('apiKey', key_id)! });

    await expect.poll(async () => (await listCustomers(bearer(key))).statusCode, { timeout: 2_000, interval: 20 }).toBe(401);
  });

  it('keeps other keys of the workspace working after one is revoked', async () => {
    const revoked = await fixture.gateway.createKey(['clients:read'], 'two-keys');
    const kept = await fixture.gateway.createKey(['clients:read'], 'two-keys');
    await runAdminCommand(fixture.gateway.orm, { name: 'keys revoke', keyId: parsePublicId('apiKey', revoked.key_id)! });

    await expect.poll(async () => (await listCustomers(bearer(revoked.key))).statusCode, { timeout: 2_000, interval: 20 }).toBe(401);
    expect((await listCustomers(bearer(kept.key))).statusCode).toBe(200);
  });

  it('forwards a live key with its workspace and a test key with the workspace\'s test data space', async () => {
    const live = await fixture.gateway.createKey(['clients:read'], 'two-modes');
    const test = await fixture.gateway.createKey(['clients:read'], 'two-modes', 'test');
    expect(test.key).toMatch(/^inv_test_/);
    expect(test.workspace_id).toBe(live.workspace_id);

    expect((await listCustomers(bearer(live.key))).statusCode).toBe(200);
    expect(fixture.upstream.received.at(-1)!.headers['x-workspace-id']).toBe(live.workspace_id);
    expect((await listCustomers(bearer(test.key))).statusCode).toBe(200);
    expect(fixture.upstream.received.at(-1)!.headers['x-workspace-id']).toBe(dataSpaceOf(live.workspace_id, 'test'));
    expect(dataSpaceOf(live.workspace_id, 'test')).not.toBe(live.workspace_id);
  });

  it('answers 401 to a key whose prefix does not name the mode stored for it', async () => {
    const { key, key_id } = await fixture.gateway.createKey(['clients:read'], 'mode-edited');
    expect((await listCustomers(bearer(key))).statusCode).toBe(200);

    // The stored mode is what counts: a live-prefixed key whose row says test is no key at all.
    await sql`update gateway.api_keys set mode = 'test' where id = ${parsePublicId('apiKey', key_id)!}`.execute(fixture.gateway.orm.em.getKysely());

    await expect.poll(async () => (await listCustomers(bearer(key))).statusCode, { timeout: 2_000, interval: 20 }).toBe(401);
    expect((await listCustomers(bearer(key))).json()).toMatchObject({ code: 'unauthenticated' });
  });
});
