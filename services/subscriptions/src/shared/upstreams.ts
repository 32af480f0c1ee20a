import { Account, Customer, dataOf, Invoice, Price, TestClock, toPublicId, type CreateSubscriptionInvoiceBody } from '@invoicing/contracts';
import type { Caller, ServiceClient } from '@invoicing/service-kit';

const CustomerResponse = dataOf(Customer);
const PriceResponse = dataOf(Price);
const AccountResponse = dataOf(Account);
const InvoiceResponse = dataOf(Invoice);
const TestClockResponse = dataOf(TestClock);

/** The catalog over its API, with the caller's identity: what a subscription names must exist there. */
export const catalogReader = (client: ServiceClient) => ({
  customer: async (caller: Caller, id: string): Promise<Customer | undefined> =>
    (await client.get(`/api/v1/customers/${toPublicId('customer', id)}`, caller, CustomerResponse))?.data,
  price: async (caller: Caller, id: string): Promise<Price | undefined> => (await client.get(`/api/v1/prices/${toPublicId('price', id)}`, caller, PriceResponse))?.data,
});
export type CatalogReader = ReturnType<typeof catalogReader>;

/**
 * Billing over its API: the workspace's time zone from its account, and each period's invoice,
 * made by keyed writes (billing records each key's outcome with the write, exactly once).
 */
export const billingClient = (client: ServiceClient) => ({
  timeZone: async (caller: Caller): Promise<string> => {
    const account = await client.get('/api/v1/account', caller, AccountResponse);
    return account?.data.timezone ?? 'UTC';
  },
  /** A test clock's time ("now" for its customers); undefined when billing has no such clock in the caller's space. */
  testClockTime: async (caller: Caller, id: string): Promise<Date | undefined> => {
    const clock = await client.get(`/api/v1/test_clocks/${toPublicId('testClock', id)}`, caller, TestClockResponse);
    return clock ? new Date(clock.data.frozen_time) : undefined;
  },
  createInvoice: (caller: Caller, body: CreateSubscriptionInvoiceBody, idempotencyKey: string) =>
    client.send('POST', '/internal/v1/subscription-invoices', caller, body, InvoiceResponse, { idempotencyKey }),
  finalizeInvoice: (caller: Caller, invoiceId: string, idempotencyKey: string) =>
    client.send('POST', `/api/v1/invoices/${toPublicId('invoice', invoiceId)}/finalize`, caller, {}, InvoiceResponse, { idempotencyKey }),
});
export type BillingClient = ReturnType<typeof billingClient>;
