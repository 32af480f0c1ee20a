import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../support/problems.ts';
import { startSystem, type TestSystem } from '../support/system.ts';

let system: TestSystem;

beforeAll(async () => {
  system = await startSystem({ services: ['catalog'] });
});

afterAll(async () => {
  await system?.stop();
});

describe('metadata through the gateway', () => {
  it('is set, merged and filtered on with metadata[key]=value as the typed client sends it, within the key’s workspace', async () => {
    const { key } = await system.mintKey('metadata-co', 'all');
    const api = system.client(key);
    const other = system.client((await system.mintKey('metadata-other', 'all')).key);
    const create = async (client: typeof api, name: string, metadata: Record<string, string>) =>
      (await client.POST('/api/v1/customers', { body: { name, metadata } })).data!.data;

    const gold = await create(api, 'Gold EU', { tier: 'gold', region: 'eu' });
    const goldUs = await create(api, 'Gold US', { tier: 'gold', region: 'us' });
    await create(api, 'Silver EU', { tier: 'silver', region: 'eu' });
    await create(other, 'Other gold', { tier: 'gold', region: 'eu' });

    const filtered = async (metadata: Record<string, string>) =>
      (await api.GET('/api/v1/customers', { params: { query: { metadata } } })).data!.data.map((customer) => customer.name);
    expect(await filtered({ tier: 'gold' })).toEqual(['Gold US', 'Gold EU']);
    expect(await filtered({ tier: 'gold', region: 'eu' })).toEqual(['Gold EU']);

    const merged = await api.PATCH('/api/v1/customers/{id}', { params: { path: { id: goldUs.id } }, body: { metadata: { region: '', note: 'vip' } } });
    expect(merged.data?.data.metadata).toEqual({ tier: 'gold', note: 'vip' });
    expect(gold.metadata).toEqual({ tier: 'gold', region: 'eu' });

    expectProblem(await api.PATCH('/api/v1/customers/{id}', { params: { path: { id: gold.id } }, body: { metadata: { ['k'.repeat(41)]: 'v' } } }), 400, 'invalid_request');
    expect((await api.GET('/api/v1/customers/{id}', { params: { path: { id: gold.id } } })).data?.data.metadata).toEqual({ tier: 'gold', region: 'eu' });
    const malformed = await fetch(`${system.gatewayUrl}/api/v1/customers?metadata=x`, { headers: { authorization: `Bearer ${key}` } });
    expectProblem({ response: malformed, error: await malformed.json() }, 400, 'invalid_request');
  });
});
