import { UpdateAccountBody } from '@invoicing/contracts';
import { describe, expect, it } from 'vitest';
import { accountChanges, accountView, businessSnapshotOf, defaultAccount, EMPTY_ADDRESS } from './account.domain.ts';
import type { AccountRow } from './account.entity.ts';
import { paymentMeansOf } from './payment-means.domain.ts';

const NOW = new Date('2026-11-26T10:00:00.000Z');
const makeAccount = (overrides: Partial<AccountRow> = {}): AccountRow => ({ ...defaultAccount('0190f3e2-0000-7000-8000-000000000001', NOW), ...overrides });
/** The patch as the contract parses it (trimmed, IBANs compacted), then the changes. */
const sut = (patch: unknown, current = makeAccount()) => accountChanges(current, UpdateAccountBody.parse(patch), NOW);
const transfer = paymentMeansOf({ type: 'credit_transfer', iban: 'DE89370400440532013000' });
const card = paymentMeansOf({ type: 'card', card_last4: '4242' });

describe('accountChanges: parties and payment means', () => {
  it('keeps the party fields, trimmed, and "" clears them', () => {
    expect(sut({ trading_name: ' Acme ', registration_id: 'HRB 12345', registration_id_scheme: '0088', legal_info: 'Amtsgericht Köln' })).toMatchObject({
      tradingName: 'Acme', registrationId: 'HRB 12345', registrationIdScheme: '0088', legalInfo: 'Amtsgericht Köln',
    });
    expect(sut({ trading_name: '', legal_info: ' ' })).toMatchObject({ tradingName: null, legalInfo: null });
  });

  it('replaces the tax representative whole, its address completed with nulls; null removes it', () => {
    const representative = { name: 'Steuer AG', tax_id: 'ATU12345678', address: { city: 'Wien', country: 'at' } };
    expect(sut({ tax_representative: representative }).taxRepresentative).toEqual({
      name: 'Steuer AG', tax_id: 'ATU12345678', address: { ...EMPTY_ADDRESS, city: 'Wien', country: 'AT' },
    });
    expect(sut({ tax_representative: null }, makeAccount({ taxRepresentative: { name: 'X', tax_id: 'DE1', address: EMPTY_ADDRESS } }))).toMatchObject({ taxRepresentative: null });
  });

  it('replaces payment_means; payment_account edits its first credit transfer', () => {
    expect(sut({ payment_means: [{ type: 'card', card_last4: '4242' }, { type: 'credit_transfer', iban: 'DE89 3704 0044 0532 0130 00' }] }).paymentMeans).toEqual([card, transfer]);
    expect(sut({ payment_account: { iban: 'DE89370400440532013000' } }, makeAccount({ paymentMeans: [card] })).paymentMeans).toEqual([transfer, card]);
    expect(sut({ payment_account: null }, makeAccount({ paymentMeans: [card, transfer] })).paymentMeans).toEqual([card]);
  });

  it.each<[string, unknown, AccountRow, string[]]>([
    ['payment_account with payment_means', { payment_account: { iban: 'DE89370400440532013000' }, payment_means: [] }, makeAccount(), ['payment_account', 'payment_means']],
    ['a registration id scheme without registration id', { registration_id_scheme: '0088' }, makeAccount(), ['registration_id_scheme']],
    ['clearing the registration id of a stored scheme', { registration_id: null }, makeAccount({ registrationId: 'HRB 1', registrationIdScheme: '0088' }), ['registration_id_scheme']],
  ])('refuses %s with a 400 naming the field', (_, patch, current, paths) => {
    expect(() => sut(patch, current)).toThrow(expect.objectContaining({ code: 'invalid_request', errors: paths.map((path) => expect.objectContaining({ path })) }));
  });
});

describe('the account as it reads, and as finalization freezes it', () => {
  const row = makeAccount({
    paymentMeans: [card, transfer],
    tradingName: 'Acme',
    registrationId: 'HRB 12345',
    registrationIdScheme: '0088',
    legalInfo: 'Amtsgericht Köln',
    taxRepresentative: { name: 'Steuer AG', tax_id: 'DE111222333', address: EMPTY_ADDRESS },
  });

  it('reads payment_account as the first credit transfer of payment_means', () => {
    expect(accountView(row)).toMatchObject({ payment_means: [card, transfer], payment_account: { iban: 'DE89370400440532013000', bic: null, name: null } });
  });

  it('freezes the party fields in the business snapshot', () => {
    expect(businessSnapshotOf(row)).toMatchObject({
      trading_name: 'Acme', registration_id: 'HRB 12345', registration_id_scheme: '0088', legal_info: 'Amtsgericht Köln',
      tax_representative: { name: 'Steuer AG', tax_id: 'DE111222333', address: EMPTY_ADDRESS }, payment_account: { iban: 'DE89370400440532013000', bic: null, name: null },
    });
  });
});
