import type { AppError } from '@invoicing/service-kit';
import { describe, expect, it } from 'vitest';
import { billingForCreate, billingForUpdate, type Billing } from './price.domain.ts';

const monthly = { interval: 'month', interval_count: 1 } as const;
const weekly2 = { interval: 'week', interval_count: 2 } as const;
const ONE_TIME: Billing = { type: 'one_time', recurring: null };
const MONTHLY: Billing = { type: 'recurring', recurring: monthly };

const refusal = (run: () => unknown): { code: string; paths: string[] } => {
  try {
    run();
  } catch (error) {
    const appError = error as AppError;
    return { code: appError.code, paths: (appError.errors ?? []).map((e) => e.path) };
  }
  throw new Error('expected a refusal');
};

describe('billingForCreate', () => {
  it.each<[Billing['type'], Billing['recurring'] | undefined, Billing]>([
    ['one_time', undefined, ONE_TIME],
    ['one_time', null, ONE_TIME],
    ['recurring', monthly, MONTHLY],
  ])('type %s with recurring %j → %j', (type, recurring, expected) => {
    expect(billingForCreate(type, recurring)).toEqual(expected);
  });

  it.each<[Billing['type'], Billing['recurring'] | undefined]>([
    ['recurring', undefined],
    ['recurring', null],
    ['one_time', monthly],
  ])('refuses type %s with recurring %j (400 on recurring)', (type, recurring) => {
    expect(refusal(() => billingForCreate(type, recurring))).toEqual({ code: 'invalid_request', paths: ['recurring'] });
  });
});

describe('billingForUpdate', () => {
  it.each<[string, Billing, Parameters<typeof billingForUpdate>[1], Billing]>([
    ['nothing about billing keeps a one-time price', ONE_TIME, {}, ONE_TIME],
    ['nothing about billing keeps a recurring price', MONTHLY, {}, MONTHLY],
    ['the same type keeps the schedule', MONTHLY, { type: 'recurring' }, MONTHLY],
    ['a new schedule replaces the old one', MONTHLY, { recurring: weekly2 }, { type: 'recurring', recurring: weekly2 }],
    ['one_time drops the schedule', MONTHLY, { type: 'one_time' }, ONE_TIME],
    ['one_time with recurring null', MONTHLY, { type: 'one_time', recurring: null }, ONE_TIME],
    ['recurring null on a one-time price', ONE_TIME, { recurring: null }, ONE_TIME],
    ['recurring with a schedule', ONE_TIME, { type: 'recurring', recurring: weekly2 }, { type: 'recurring', recurring: weekly2 }],
  ])('%s', (_, current, patch, expected) => {
    expect(billingForUpdate(current, patch)).toEqual(expected);
  });

  it.each<[string, Billing, Parameters<typeof billingForUpdate>[1]]>([
    ['recurring without a schedule', ONE_TIME, { type: 'recurring' }],
    ['recurring with a null schedule', ONE_TIME, { type: 'recurring', recurring: null }],
    ['a schedule on a one-time price', ONE_TIME, { recurring: monthly }],
    ['one_time with a schedule', MONTHLY, { type: 'one_time', recurring: monthly }],
    ['a null schedule on a recurring price', MONTHLY, { recurring: null }],
  ])('refuses %s (400 on recurring)', (_, current, patch) => {
    expect(refusal(() => billingForUpdate(current, patch))).toEqual({ code: 'invalid_request', paths: ['recurring'] });
  });
});
