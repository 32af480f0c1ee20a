import { CreateSubscriptionBody, type Price } from '@invoicing/contracts';
import { describe, expect, it } from 'vitest';
import {
  cancelAtPeriodEnd,
  invoiceRequest,
  itemRows,
  itemsInForceOn,
  latestItems,
  newSubscription,
  nextActionAt,
  nextPeriodStart,
  periodKey,
  termsOfPrices,
} from './subscription.domain.ts';

const WORKSPACE = '00000000-0000-4000-8000-000000000001';
const CUSTOMER = '00000000-0000-4000-8000-000000000003';
const PRICE = '00000000-0000-4000-8000-000000000004';
const OTHER = '00000000-0000-4000-8000-000000000005';

const makePrice = (overrides: Partial<Price> = {}): Price => ({
  id: 'price_00000000000040008000000000000004',
  object: 'price',
  livemode: true,
  product: 'prod_00000000000040008000000000000006',
  nickname: null,
  unit_amount: 4_900,
  currency: 'EUR',
  billing_scheme: 'per_unit',
  type: 'recurring',
  recurring: { interval: 'month', interval_count: 1 },
  tax_rate: 19,
  active: true,
  metadata: {},
  created: '2027-01-01T00:00:00.000Z',
  ...overrides,
});

const makeSubscription = (body: Record<string, unknown> = {}, now = '2027-01-31T10:00:00.000Z', timeZone = 'Europe/Berlin') =>
  newSubscription(WORKSPACE, CreateSubscriptionBody.parse({ customer: CUSTOMER, items: [{ price: PRICE, quantity: 2 }], ...body }), {
    terms: { currency: 'EUR', cadence: { interval: 'month', intervalCount: 1 } },
    timeZone,
    now: new Date(now),
  });

describe('termsOfPrices', () => {
  it('takes currency and interval from the first price and names each price that breaks them', () => {
    expect(termsOfPrices([makePrice(), makePrice()])).toEqual({ currency: 'EUR', cadence: { interval: 'month', intervalCount: 1 } });
    const refused = (() => {
      try {
        termsOfPrices([makePrice(), makePrice({ type: 'one_time', recurring: null }), makePrice({ active: false }), makePrice({ currency: 'USD' }), makePrice({ recurring: { interval: 'month', interval_count: 3 } })]);
      } catch (error) {
        return (error as { errors?: { path: string }[] }).errors?.map((issue) => issue.path);
      }
      return [];
    })();
    expect(refused).toEqual(['items.1.price', 'items.2.price', 'items.3.price', 'items.4.price']);
  });
});

describe('items by period', () => {
  it('bills each period with the list in force when it began; reads show the latest', () => {
    const { row, items } = makeSubscription();
    const later = itemRows(row, [{ price: OTHER, quantity: 5 }], '2027-02-28');
    const all = [...items, ...later];
    expect(itemsInForceOn(all, '2027-01-31').map((item) => item.priceId)).toEqual([PRICE]);
    expect(itemsInForceOn(all, '2027-02-28').map((item) => item.priceId)).toEqual([OTHER]);
    expect(latestItems(all).map((item) => item.quantity)).toEqual([5]);
  });

  it('a change applies from the next period that has not begun, also while invoices lag behind', () => {
    const { row } = makeSubscription({ start_date: '2027-01-31' });
    expect(nextPeriodStart({ ...row, periodsInvoiced: 1 }, '2027-02-10')).toBe('2027-02-28');
    expect(nextPeriodStart({ ...row, periodsInvoiced: 0 }, '2027-03-05')).toBe('2027-03-31');
    expect(nextPeriodStart({ ...row, periodsInvoiced: 0 }, '2027-01-10')).toBe('2027-01-31');
    expect(cancelAtPeriodEnd(row, '2027-03-05')).toBe('2027-03-31');
  });
});

describe('scheduling', () => {
  it('the next action is the next period’s start at midnight in the workspace’s zone, or the cancellation if sooner', () => {
    const { row } = makeSubscription({ start_date: '2027-03-28' });
    expect(nextActionAt(row)?.toISOString()).toBe('2027-03-27T23:00:00.000Z');
    expect(nextActionAt({ ...row, periodsInvoiced: 1 })?.toISOString()).toBe('2027-04-27T22:00:00.000Z');
    expect(nextActionAt({ ...row, periodsInvoiced: 1, cancelAt: '2027-04-10' })?.toISOString()).toBe('2027-04-09T22:00:00.000Z');
    expect(nextActionAt({ ...row, status: 'canceled' })).toBeNull();
  });

  it('a period’s request names the subscription, its items and the period, the same on every call', () => {
    const { row, items } = makeSubscription({ start_date: '2027-01-31', days_until_due: 14 });
    const first = invoiceRequest(row, items, 1);
    expect(first).toEqual(invoiceRequest(row, items, 1));
    expect(first.body).toEqual({
      customer: 'cus_00000000000040008000000000000003',
      subscription: `sub_${row.id.replaceAll('-', '')}`,
      period_start: '2027-02-28',
      currency: 'EUR',
      collection_method: 'send_invoice',
      issue_date: '2027-02-28',
      days_until_due: 14,
      items: [{ price: 'price_00000000000040008000000000000004', quantity: 2, period: { start: '2027-02-28', end: '2027-03-30' } }],
    });
    expect(periodKey(row, '2027-02-28', 'create')).toBe(`sub_${row.id.replaceAll('-', '')}/2027-02-28/create`);
  });

  it('starts today in the workspace’s zone by default, and refuses a cancel_at not after the start', () => {
    expect(makeSubscription({}, '2027-01-31T23:30:00.000Z').row.startDate).toBe('2027-02-01');
    expect(makeSubscription({}, '2027-01-31T23:30:00.000Z', 'UTC').row.startDate).toBe('2027-01-31');
    expect(() => makeSubscription({ start_date: '2027-02-01', cancel_at: '2027-02-01' })).toThrow(/cancel_at/);
  });
});
