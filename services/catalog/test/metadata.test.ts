import { describeMetadata } from '@invoicing/testing/metadata-suite';
import { afterAll, beforeAll } from 'vitest';
import { gatewayHeaders, startCatalog, type Catalog } from './harness.ts';

let catalog: Catalog;
beforeAll(async () => {
  catalog = await startCatalog('catalog_metadata');
});
afterAll(() => catalog.close());

const send = (workspaceId: string, method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown) =>
  catalog.app.inject({ method, url, headers: gatewayHeaders(workspaceId), ...(body === undefined ? {} : { payload: body as object }) });

describeMetadata('customer', {
  path: '/api/v1/customers',
  send,
  create: (workspaceId, fields) => send(workspaceId, 'POST', '/api/v1/customers', { name: 'Müller GmbH', ...fields }),
});

describeMetadata('product', {
  path: '/api/v1/products',
  send,
  create: (workspaceId, fields) => send(workspaceId, 'POST', '/api/v1/products', { name: 'Consulting hour', ...fields }),
});

describeMetadata('price', {
  path: '/api/v1/prices',
  send,
  create: async (workspaceId, fields) => {
    const product = (await send(workspaceId, 'POST', '/api/v1/products', { name: 'Consulting hour' })).json<{ data: { id: string } }>().data;
    return send(workspaceId, 'POST', '/api/v1/prices', { product: product.id, unit_amount: 12_000, currency: 'EUR', ...fields });
  },
});
