import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTERNAL_TOKEN, startNotifications, type Notifications } from './harness.ts';

describe('webhook endpoint writes under an Idempotency-Key', () => {
  let notifications: Notifications;

  beforeAll(async () => {
    notifications = await startNotifications('notifications_keyed');
  });
  afterAll(async () => {
    await notifications?.close();
  });

  it('a create repeated after a lost answer makes one endpoint and answers its secret again', async () => {
    const workspaceId = randomUUID();
    const key = randomUUID();
    const create = () =>
      notifications.app.inject({
        method: 'POST',
        url: '/api/v1/webhook_endpoints',
        headers: { 'x-internal-token': INTERNAL_TOKEN, 'x-workspace-id': workspaceId, 'x-api-key-id': 'key_test', 'x-idempotency-key': key },
        payload: { url: 'http://127.0.0.1:9/hook', enabled_events: ['*'] },
      });
    const [first, second] = await Promise.all([create(), create()]);

    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.json().data).toEqual(first.json().data);
    expect(first.json().data.secret).toMatch(/^whsec_/);
    const list = await notifications.workspace(workspaceId).get('/api/v1/webhook_endpoints');
    expect(list.json().data).toHaveLength(1);
  });
});
