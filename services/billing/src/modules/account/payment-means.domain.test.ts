import type { PaymentMeans } from '@invoicing/contracts';
import { describe, expect, it } from 'vitest';
import { invoicePaymentMeansOf, paymentAccountOf, paymentMeansOf, withPaymentAccount } from './payment-means.domain.ts';

const makeMeans = (overrides: Partial<PaymentMeans> & Pick<PaymentMeans, 'type'>): PaymentMeans => ({ ...paymentMeansOf({ type: overrides.type }), ...overrides });
const transfer = makeMeans({ type: 'credit_transfer', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', account_name: 'Seller GmbH', information: 'SEPA' });
const second = makeMeans({ type: 'credit_transfer', iban: 'DE02120300000000202051' });
const card = makeMeans({ type: 'card', card_last4: '4242' });
const debit = makeMeans({ type: 'sepa_direct_debit', creditor_id: 'DE98ZZZ09999999999', debited_iban: 'DE02120300000000202051' });
const paypal = makeMeans({ type: 'paypal', information: 'pay@seller.example' });

describe('paymentMeansOf', () => {
  it('fills every field the entry does not send with null', () => {
    expect(paymentMeansOf({ type: 'paypal', information: 'pay@seller.example' })).toEqual({
      type: 'paypal', information: 'pay@seller.example', iban: null, bic: null, account_name: null, mandate_reference: null, creditor_id: null, debited_iban: null, card_last4: null, card_holder: null,
    });
  });
});

describe('paymentAccountOf', () => {
  it.each<[string, PaymentMeans[], ReturnType<typeof paymentAccountOf>]>([
    ['none', [], null],
    ['no credit transfer', [card, paypal], null],
    ['the first credit transfer, wherever it stands', [card, transfer, second], { iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', name: 'Seller GmbH' }],
  ])('%s', (_, list, expected) => {
    expect(paymentAccountOf(list)).toEqual(expected);
  });
});

describe('withPaymentAccount', () => {
  const sent = { iban: 'DE75512108001245126199', bic: null, name: 'New Holder' };
  const entry = { ...makeMeans({ type: 'credit_transfer', iban: sent.iban, account_name: 'New Holder' }) };

  it.each<[string, PaymentMeans[], Parameters<typeof withPaymentAccount>[1], PaymentMeans[]]>([
    ['sets the first credit transfer, keeping its text and every other entry', [card, transfer, second], sent, [card, { ...entry, information: 'SEPA' }, second]],
    ['adds one at the front when there is none', [card, paypal], sent, [entry, card, paypal]],
    ['adds the only entry to an empty list', [], sent, [entry]],
    ['null removes the first credit transfer only', [card, transfer, second], null, [card, second]],
    ['null without a credit transfer changes nothing', [card], null, [card]],
  ])('%s', (_, list, account, expected) => {
    expect(withPaymentAccount(list, account)).toEqual(expected);
  });

  it('reads back as the payment account it set', () => {
    expect(paymentAccountOf(withPaymentAccount([card, transfer], sent))).toEqual(sent);
  });
});

describe('invoicePaymentMeansOf', () => {
  it.each<[string, PaymentMeans[], PaymentMeans[], PaymentMeans[]]>([
    ["the invoice's own entries win", [second], [card, transfer], [second]],
    ["else the account's entries of its first entry's type, in order", [], [transfer, card, second, debit], [transfer, second]],
    ['a card first: the cards', [], [card, transfer], [card]],
    ['none anywhere: none', [], [], []],
  ])('%s', (_, own, account, expected) => {
    expect(invoicePaymentMeansOf(own, account)).toEqual(expected);
  });
});
