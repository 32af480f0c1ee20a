import { Customer, dataOf, Price, Product, toPublicId } from '@invoicing/contracts';
import type { ServiceClient } from '@invoicing/service-kit';
import { callerFor, type Actor } from './actor.ts';

const CustomerResponse = dataOf(Customer);
const PriceResponse = dataOf(Price);
const ProductResponse = dataOf(Product);

/**
 * The catalog, read over its API with the actor's identity: the same public paths the gateway
 * serves. Each lookup answers undefined when the catalog has no such record in the workspace.
 */
export const catalogReader = (client: ServiceClient) => ({
  customer: async (actor: Actor, id: string): Promise<Customer | undefined> =>
    (await client.get(`/api/v1/customers/${toPublicId('customer', id)}`, callerFor(actor), CustomerResponse))?.data,
  price: async (actor: Actor, id: string): Promise<Price | undefined> =>
    (await client.get(`/api/v1/prices/${toPublicId('price', id)}`, callerFor(actor), PriceResponse))?.data,
  product: async (actor: Actor, publicId: string): Promise<Product | undefined> =>
    (await client.get(`/api/v1/products/${encodeURIComponent(publicId)}`, callerFor(actor), ProductResponse))?.data,
});

export type CatalogReader = ReturnType<typeof catalogReader>;
