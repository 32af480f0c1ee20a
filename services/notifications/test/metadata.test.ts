import { describeMetadata } from '@invoicing/testing/metadata-suite';
import { afterAll, beforeAll } from 'vitest';
import { INTERNAL_TOKEN, startNotifications, type Notifications } from './harness.ts';

let notifications: Notifications;
beforeAll(async () => {
  notifications = await startNotifications('notifications_metadata');
});
afterAll(() => notifications.close());

const send = (workspaceId: string, method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown) =>
  notifications.app.inject({
    method,
    url,
    headers: { 'x-internal-token': INTERNAL_TOKEN, 'x-workspace-id': workspaceId, 'x-api-key-id': 'key_test' },
    ...(body === undefined ? {} : { payload: body as object }),
  });

describeMetadata('webhook endpoint', {
  path: '/api/v1/webhook_endpoints',
  send,
  create: (workspaceId, fields) => send(workspaceId, 'POST', '/api/v1/webhook_endpoints', { url: 'http://127.0.0.1:9/hooks', enabled_events: ['invoice.paid'], ...fields }),
});
