import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogSeeder, startBillingHarness, workspaceClient, type BillingHarness, type WorkspaceClient } from './support/billing-harness.ts';

describe('drafts', () => {
  let harness: BillingHarness;
  let api: WorkspaceClient;
  let seed: ReturnType<typeof catalogSeeder>;
  let customer: { id: string; name: string };

  beforeAll(async () => {
    harness = await startBillingHarness();
    api = workspaceClient(harness.service);
    seed = catalogSeeder(harness, api.workspaceId);
    customer = await seed.customer();
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('creates a draft from ad-hoc and catalog lines', async () => {
    const product = await seed.product({ name: 'Design workshop' });
    const price = await seed.price(product.id, { unit_amount: 50_000, currency: 'EUR', tax_rate: 19 });
    const created = await api.call('POST', '/api/v1/invoices', {
      customer: customer.id,
      currency: 'eur',
      items: [
        { description: 'Travel', unit_amount: 12_345, quantity: 2, discount: { amount_off: 345 }, tax_rate: 7 },
        { price: price.id, quantity: 3, discount: { percent_off: 10 } },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    console.log(JSON.stringify(created.body, null, 1));
  });
});
