import type { WebhookEndpoint, WebhookEndpointWithSecret } from '@invoicing/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, startNotifications, type Notifications, type WorkspaceClient } from './harness.ts';

const ISO_MS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

let notifications: Notifications;
beforeAll(async () => {
  notifications = await startNotifications('notifications_endpoints');
});
afterAll(() => notifications?.close());

const createEndpoint = (client: WorkspaceClient, body: Record<string, unknown> = {}) =>
  client.data<WebhookEndpointWithSecret>(client.post('/api/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/hooks', enabled_events: ['invoice.paid'], ...body }));

describe('webhook endpoints', () => {
  it('creates an endpoint and shows its secret in the create response only', async () => {
    const client = notifications.workspace();
    const reply = await client.post('/api/v1/webhook_endpoints', {
      url: 'http://127.0.0.1:9/hooks',
      enabled_events: ['invoice.paid', 'invoice.voided', 'invoice.paid'],
      description: 'Accounting sync',
    });

    expect(reply.statusCode, reply.body).toBe(201);
    const created = reply.json<{ data: WebhookEndpointWithSecret }>().data;
    expect(created).toEqual({
      id: expect.stringMatching(/^we_[0-9a-f]{32}$/),
      object: 'webhook_endpoint',
      livemode: true,
      url: 'http://127.0.0.1:9/hooks',
      enabled_events: ['invoice.paid', 'invoice.voided'],
      description: 'Accounting sync',
      status: 'enabled',
      disabled_reason: null,
      disabled_at: null,
      failing_since: null,
      previous_secret_expires_at: null,
      metadata: {},
      created: expect.stringMatching(ISO_MS_UTC),
      updated: expect.stringMatching(ISO_MS_UTC),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    expect(Buffer.from(created.secret.slice('whsec_'.length), 'base64')).toHaveLength(32);

    const { secret: _, ...withoutSecret } = created;
    const retrieved = await client.data<WebhookEndpoint>(client.get(`/api/v1/webhook_endpoints/${created.id}`));
    expect(retrieved).toEqual(withoutSecret);
    expect(await client.data(client.get('/api/v1/webhook_endpoints'))).toEqual([withoutSecret]);
  });

  it('stores the secret encrypted, never as it was shown', async () => {
    const client = notifications.workspace();
    const created = await createEndpoint(client);
    const rows = await notifications.service.orm.em
      .fork()
      .execute<{ secret: string }[]>('select secret from notifications.webhook_endpoints where workspace_id = ?', [client.workspaceId]);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.secret).not.toContain(created.secret.slice('whsec_'.length, 20));
    expect(rows[0]!.secret).toMatch(/^v1\./);
  });

  it('accepts ["*"] for every type; refuses unknown types, an empty list and "*" beside types', async () => {
    const client = notifications.workspace();
    expect((await createEndpoint(client, { enabled_events: ['*'] })).enabled_events).toEqual(['*']);
    expectProblem(await client.post('/api/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/', enabled_events: ['invoice.paid', 'invoice.exploded'] }), 400, 'invalid_request', ['enabled_events.1']);
    expectProblem(await client.post('/api/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/', enabled_events: [] }), 400, 'invalid_request', ['enabled_events']);
    expectProblem(await client.post('/api/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/', enabled_events: ['*', 'invoice.paid'] }), 400, 'invalid_request', ['enabled_events']);
    expectProblem(await client.post('/api/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/' }), 400, 'invalid_request', ['enabled_events']);
    expectProblem(await client.post('/api/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/', enabled_events: ['*'], secret: 'mine' }), 400, 'invalid_request', ['secret']);
  });

  it.each([
    ['a private address', 'https://10.0.0.1/hooks', 'not allowed: 10.0.0.1 is not a public address'],
    ['the cloud metadata address', 'https://169.254.169.254/latest/meta-data', 'not allowed: 169.254.169.254 is not a public address'],
    ['IPv6 loopback', 'https://[::1]/hooks', 'not allowed: ::1 is not a public address'],
    ['an IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/hooks', 'not allowed: ::ffff:7f00:1 is not a public address'],
    ['a unique-local IPv6 address', 'https://[fd00::1]/hooks', 'not allowed: fd00::1 is not a public address'],
    ['a name resolving to loopback', 'https://localhost/hooks', 'not allowed: localhost resolves to'],
    ['plain http to a public host', 'http://93.184.216.34/hooks', 'not allowed: it must use https'],
    ['credentials in the URL', 'https://user:pw@93.184.216.34/hooks', 'not allowed: it may not carry a user name or password'],
    ['a relative URL', '/hooks', 'not allowed: it must be an absolute URL'],
  ])('refuses %s with 400 on url', async (_, url, detail) => {
    const client = notifications.workspace();
    const problem = expectProblem(await client.post('/api/v1/webhook_endpoints', { url, enabled_events: ['*'] }), 400, 'invalid_request', ['url']);
    expect(problem.detail).toContain(detail);
    const created = await createEndpoint(client);
    expectProblem(await client.patch(`/api/v1/webhook_endpoints/${created.id}`, { url }), 400, 'invalid_request', ['url']);
  });

  it('accepts a public https address', async () => {
    const client = notifications.workspace();
    expect((await createEndpoint(client, { url: 'https://93.184.216.34/hooks' })).url).toBe('https://93.184.216.34/hooks');
  });

  it('updates url, events and description; disabling and enabling are recorded', async () => {
    const client = notifications.workspace();
    const created = await createEndpoint(client, { description: 'first' });
    const path = `/api/v1/webhook_endpoints/${created.id}`;

    const updated = await client.data<WebhookEndpoint>(client.patch(path, { url: 'http://127.0.0.1:10/new', enabled_events: ['*'], description: '' }));
    expect(updated).toMatchObject({ url: 'http://127.0.0.1:10/new', enabled_events: ['*'], description: null, status: 'enabled' });

    const disabled = await client.data<WebhookEndpoint>(client.patch(path, { status: 'disabled' }));
    expect(disabled).toMatchObject({ status: 'disabled', disabled_reason: 'requested', disabled_at: expect.stringMatching(ISO_MS_UTC) });
    expect(await client.data(client.get(path))).toEqual(disabled);

    const enabled = await client.data<WebhookEndpoint>(client.patch(path, { status: 'enabled' }));
    expect(enabled).toMatchObject({ status: 'enabled', disabled_reason: null, disabled_at: null, failing_since: null });
    expect(await client.data(client.patch(path, {}))).toMatchObject({ url: 'http://127.0.0.1:10/new', status: 'enabled' });
  });

  it('rotates the secret: a new one, shown once, and the old one valid for 24 hours', async () => {
    const client = notifications.workspace();
    const created = await createEndpoint(client);
    const before = Date.now();
    const rotated = await client.data<WebhookEndpointWithSecret>(client.post(`/api/v1/webhook_endpoints/${created.id}/rotate_secret`));
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    const expires = Date.parse(rotated.previous_secret_expires_at!);
    expect(expires - before).toBeGreaterThanOrEqual(24 * 3600_000 - 1_000);
    expect(expires - before).toBeLessThanOrEqual(24 * 3600_000 + 5_000);
    expect(await client.data(client.get(`/api/v1/webhook_endpoints/${created.id}`))).not.toHaveProperty('secret');
  });

  it('deletes with 204; then it is a 404', async () => {
    const client = notifications.workspace();
    const created = await createEndpoint(client);
    const reply = await client.delete(`/api/v1/webhook_endpoints/${created.id}`);
    expect(reply.statusCode).toBe(204);
    expect(reply.body).toBe('');
    expectProblem(await client.get(`/api/v1/webhook_endpoints/${created.id}`), 404, 'not_found');
    expectProblem(await client.delete(`/api/v1/webhook_endpoints/${created.id}`), 404, 'not_found');
  });

  it("answers 404 for another workspace's endpoint, a malformed ID and another resource's prefix", async () => {
    const owner = notifications.workspace();
    const stranger = notifications.workspace();
    const created = await createEndpoint(owner);
    for (const attempt of [
      stranger.get(`/api/v1/webhook_endpoints/${created.id}`),
      stranger.patch(`/api/v1/webhook_endpoints/${created.id}`, { status: 'disabled' }),
      stranger.delete(`/api/v1/webhook_endpoints/${created.id}`),
      stranger.post(`/api/v1/webhook_endpoints/${created.id}/rotate_secret`),
      owner.get('/api/v1/webhook_endpoints/we_123'),
      owner.get(`/api/v1/webhook_endpoints/${created.id.replace('we_', 'evt_')}`),
    ]) {
      expectProblem(await attempt, 404, 'not_found');
    }
    expect(await stranger.data(stranger.get('/api/v1/webhook_endpoints'))).toEqual([]);
    expect(await owner.data(owner.get(`/api/v1/webhook_endpoints/${created.id}`))).toMatchObject({ status: 'enabled' });
  });

  it('lists newest first in keyset pages', async () => {
    const client = notifications.workspace();
    const ids: string[] = [];
    for (let n = 0; n < 5; n += 1) ids.push((await createEndpoint(client, { description: `n${n}` })).id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const reply = await client.get(`/api/v1/webhook_endpoints?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      const page = reply.json<{ data: WebhookEndpoint[]; next_cursor: string | null }>();
      seen.push(...page.data.map((endpoint) => endpoint.id));
      cursor = page.next_cursor;
    } while (cursor && seen.length < 10);
    expect(seen).toEqual(ids.toReversed());
    expectProblem(await client.get('/api/v1/webhook_endpoints?cursor=bogus'), 400, 'invalid_request', ['cursor']);
  });
});
