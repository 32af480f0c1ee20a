import { randomUUID } from 'node:crypto';
import { describeMetadata } from '@invoicing/testing/metadata-suite';
import { afterAll, beforeAll } from 'vitest';
import { INTERNAL_TOKEN, startSubscriptionsHarness, workspaceOf, type SubscriptionsHarness } from './support/harness.ts';

let harness: SubscriptionsHarness;
beforeAll(async () => {
  harness = await startSubscriptionsHarness();
});
afterAll(async () => {
  await harness?.close();
});

const send = (workspaceId: string, method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown, headers: Record<string, string> = {}) =>
  harness.service.app.inject({
    method,
    url,
    headers: { 'x-internal-token': INTERNAL_TOKEN, 'x-workspace-id': workspaceId, 'x-api-key-id': 'key_test', ...headers },
    ...(body === undefined ? {} : { payload: body as object }),
  });

// One customer and recurring price per workspace, made through the real catalog the first time a workspace needs them.
const seeded = new Map<string, Promise<{ customer: string; price: string }>>();
const seedOf = (workspaceId: string) => {
  if (!seeded.has(workspaceId)) {
    const { seed } = workspaceOf(harness, workspaceId as ReturnType<typeof randomUUID>);
    seeded.set(workspaceId, Promise.all([seed.customer(), seed.price()]).then(([customer, price]) => ({ customer: customer.id, price: price.id })));
  }
  return seeded.get(workspaceId)!;
};

describeMetadata('subscription', {
  path: '/api/v1/subscriptions',
  send,
  create: async (workspaceId, fields) => {
    const { customer, price } = await seedOf(workspaceId);
    // Starting next month: creating it invoices nothing yet.
    return send(workspaceId, 'POST', '/api/v1/subscriptions', { customer, items: [{ price }], start_date: '2027-05-01', ...fields }, { 'x-idempotency-key': randomUUID() });
  },
});
