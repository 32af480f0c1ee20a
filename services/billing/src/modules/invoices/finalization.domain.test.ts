import type { Customer } from '@invoicing/contracts';
import { describe, expect, it } from 'vitest';
import { defaultAccount } from '../account/account.domain.ts';
import { paymentMeansOf } from '../account/payment-means.domain.ts';
import { chainHashOf, CURRENT_DOCUMENT_VERSION, GENESIS_CHAIN, snapshotHashOf } from '../numbering/invoice-integrity.domain.ts';
import { FINALIZED_PROPERTIES, freezeDraft, numberAndChain } from './finalization.domain.ts';
import { invoiceView, newDraft, transition } from './invoice.domain.ts';
import { EXAMPLE_WORKSPACE, makeLine } from '../../../test/support/rows.ts';

const WORKSPACE = EXAMPLE_WORKSPACE;
const now = new Date('2026-11-22T10:00:00.000Z');
const view = { today: '2026-11-22', publicUrlBase: 'http://localhost:8080' };
const customer: Customer = {
  id: 'cus_00000000000040008000000000000002',
  object: 'customer',
  livemode: true,
  name: 'Müller GmbH',
  email: 'rechnung@mueller.example',
  phone: null,
  tax_id: 'DE123456789',
  address: { line1: null, line2: null, city: 'Köln', state: null, postal_code: null, country: 'DE' },
  electronic_address: null,
  electronic_address_scheme: null,
  buyer_reference: 'PO-7',
  identifier: null,
  identifier_scheme: null,
  contact_name: null,
  preferred_locale: null,
  email_status: 'ok',
  test_clock: null,
  deleted: false,
  metadata: {},
  created: now.toISOString(),
};
const makeDraft = () => ({ ...newDraft(WORKSPACE, { customer: '00000000-0000-4000-8000-000000000002', items: [] }, { customerName: 'Müller', currency: 'EUR', today: '2026-11-22', now }), total: 11_900 });
const line = (invoiceId: string) => makeLine({ id: `${invoiceId}-line`, invoiceId });

const frozen = () => {
  const draft = makeDraft();
  const opened = transition(draft, { to: 'open' }, { now, today: '2026-11-22' })!;
  const columns = freezeDraft(draft, { opened, customer, account: defaultAccount(WORKSPACE, now), publicUrlToken: 'token' });
  return { invoice: { ...draft, ...columns }, lines: [line(draft.id)], view };
};

describe('freezeDraft', () => {
  it('opens the draft with the buyer and seller as they are now, defaults for what the draft left empty, and the link', () => {
    const draft = makeDraft();
    const opened = transition(draft, { to: 'open' }, { now, today: '2026-11-22' })!;
    const sut = freezeDraft(draft, { opened, customer, account: defaultAccount(WORKSPACE, now), publicUrlToken: 'token' });
    expect(sut).toMatchObject({ status: 'open', amountDue: 11_900, finalizedAt: now, customerName: 'Müller GmbH', buyerReference: 'PO-7', deliveryDate: '2026-11-22', publicUrlToken: 'token', snapshotVersion: 4, locale: 'en', paidAt: null });
    expect(sut.customerSnapshot).toMatchObject({ name: 'Müller GmbH', tax_id: 'DE123456789', electronic_address: 'rechnung@mueller.example', electronic_address_scheme: 'EM' });
  });

  it("keeps the draft's own buyer reference and delivery date", () => {
    const draft = { ...makeDraft(), buyerReference: 'Own', deliveryDate: '2026-11-01' };
    const sut = freezeDraft(draft, { opened: transition(draft, { to: 'open' }, { now, today: '2026-11-22' })!, customer, account: defaultAccount(WORKSPACE, now), publicUrlToken: 't' });
    expect(sut).toMatchObject({ buyerReference: 'Own', deliveryDate: '2026-11-01' });
  });
});

describe('freezeDraft: payment means and parties', () => {
  const transfer = paymentMeansOf({ type: 'credit_transfer', iban: 'DE89370400440532013000' });
  const second = paymentMeansOf({ type: 'credit_transfer', iban: 'DE02120300000000202051' });
  const card = paymentMeansOf({ type: 'card', card_last4: '4242' });
  const freeze = (draft: ReturnType<typeof makeDraft>, account = defaultAccount(WORKSPACE, now)) =>
    freezeDraft(draft, { opened: transition(draft, { to: 'open' }, { now, today: '2026-11-22' })!, customer, account, publicUrlToken: 't' });

  it.each<[string, (typeof transfer)[], (typeof transfer)[], (typeof transfer)[]]>([
    ["the draft's own", [card], [transfer], [card]],
    ["else the account's of its first entry's type", [], [transfer, card, second], [transfer, second]],
    ['else none', [], [], []],
  ])('freezes the payment means: %s', (_, own, account, expected) => {
    expect(freeze({ ...makeDraft(), paymentMeans: own }, { ...defaultAccount(WORKSPACE, now), paymentMeans: account }).paymentMeans).toEqual(expected);
  });

  it('freezes the buyer identifier and contact in the customer snapshot, and the seller parties in the business snapshot', () => {
    const representative = { name: 'Steuer AG', tax_id: 'DE111222333', address: customer.address };
    const sut = freeze(makeDraft(), { ...defaultAccount(WORKSPACE, now), tradingName: 'Acme', registrationId: 'HRB 1', registrationIdScheme: '0088', legalInfo: 'AG Köln', taxRepresentative: representative });
    expect(freezeDraft(makeDraft(), {
      opened: transition(makeDraft(), { to: 'open' }, { now, today: '2026-11-22' })!,
      customer: { ...customer, identifier: '4000001000005', identifier_scheme: '0088', contact_name: 'Frau Weber' },
      account: defaultAccount(WORKSPACE, now),
      publicUrlToken: 't',
    }).customerSnapshot).toMatchObject({ identifier: '4000001000005', identifier_scheme: '0088', contact_name: 'Frau Weber' });
    expect(sut.businessSnapshot).toMatchObject({ trading_name: 'Acme', registration_id: 'HRB 1', registration_id_scheme: '0088', legal_info: 'AG Köln', tax_representative: representative });
  });

  it('writes the frozen payment means with the finalization', () => {
    expect(FINALIZED_PROPERTIES).toContain('paymentMeans');
  });
});

describe('numberAndChain', () => {
  const series = { workspaceId: WORKSPACE, format: 'INV/{YYYY}/{SEQ:4}', period: '2026' };

  it('numbers a batch in order from the first number taken and chains each onto the one before', () => {
    const batch = [frozen(), frozen(), frozen()];
    const { numbered, chainHead } = numberAndChain(batch, series, 41, GENESIS_CHAIN);
    expect(numbered.map(({ row }) => row.number)).toEqual(['INV/2026/0041', 'INV/2026/0042', 'INV/2026/0043']);
    let chain = GENESIS_CHAIN;
    numbered.forEach(({ row, invoice }, index) => {
      const snapshot = snapshotHashOf(invoiceView({ ...row, snapshotSha256: null, chainSha256: null }, batch[index]!.lines, view), CURRENT_DOCUMENT_VERSION);
      chain = chainHashOf(chain, snapshot);
      expect(row).toMatchObject({ snapshotSha256: snapshot, chainSha256: chain, numberSequence: 41 + index });
      expect(invoice).toMatchObject({ number: row.number, snapshot_sha256: snapshot, chain_sha256: chain, status: 'open' });
    });
    expect(chainHead).toBe(chain);
  });

  it('answers exactly the columns finalization sets, as the row has them', () => {
    const { row, columns } = numberAndChain([frozen()], series, 1, GENESIS_CHAIN).numbered[0]!;
    expect(Object.keys(columns).sort()).toEqual([...FINALIZED_PROPERTIES].sort());
    for (const property of FINALIZED_PROPERTIES) expect(columns[property]).toEqual(row[property]);
  });
});
