import { describe, expect, it } from 'vitest';
import type { Address } from '@invoicing/contracts';
import { makeInvoice } from '../../../test/support/invoices.ts';
import { addressLinesOf, brandColorsOf, contrastRatio, paperFor, toInvoiceDocumentView } from './invoice-view.domain.ts';

describe('the printed invoice view', () => {
  it('formats every line and total in the invoice currency, with the net amount and VAT of each VAT group', () => {
    const sut = toInvoiceDocumentView(makeInvoice({ currency: 'EUR' }));
    expect(sut.lines).toEqual([
      { description: 'Design workshop', period: null, quantity: '2', unitPrice: '€450.00', discount: '-€90.00 (10%)', taxRate: '19%', amount: '€810.00' },
      { description: 'Printed brochures', period: null, quantity: '300', unitPrice: '€1.25', discount: null, taxRate: '7%', amount: '€375.00' },
      { description: 'Travel', period: null, quantity: '1', unitPrice: '€89.90', discount: '-€9.90', taxRate: '0%', amount: '€80.00' },
    ]);
    expect(sut.totals).toEqual([
      { label: 'Subtotal', amount: '€1,364.90' },
      { label: 'Discount', amount: '-€99.90' },
      { label: 'Net amount', amount: '€1,265.00' },
      { label: 'Total VAT', amount: '€180.15' },
    ]);
    expect(sut.vatGroups).toEqual([
      { category: 'Taxable', rate: '19%', netAmount: '€810.00', vat: '€153.90' },
      { category: 'Taxable', rate: '7%', netAmount: '€375.00', vat: '€26.25' },
      { category: 'Zero rated', rate: '0%', netAmount: '€80.00', vat: '€0.00' },
    ]);
    expect(sut.total).toEqual({ label: 'Total (EUR)', amount: '€1,445.15' });
  });

  it.each([
    ['JPY', [{ description: 'Consulting', quantity: 3, unit_amount: 12_345, tax_rate: 10 }], 'JP¥37,035', 'JP¥3,704', 'JP¥40,739'],
    ['KWD', [{ description: 'Consulting', quantity: 2, unit_amount: 1_250, tax_rate: 5 }], 'KWD\u00a02.500', 'KWD\u00a00.125', 'KWD\u00a02.625'],
    ['USD', [{ description: 'Consulting', quantity: 1, unit_amount: 99_999, tax_rate: 8.875 }], 'US$999.99', 'US$88.75', 'US$1,088.74'],
  ])('prints %s amounts with its minor-unit exponent', (currency, lineInputs, subtotal, tax, total) => {
    const sut = toInvoiceDocumentView(makeInvoice({ currency, lineInputs }));
    expect(sut.totals).toEqual([
      { label: 'Subtotal', amount: subtotal },
      { label: 'Net amount', amount: subtotal },
      { label: 'Total VAT', amount: tax },
    ]);
    expect(sut.total.amount).toBe(total);
  });

  it('writes in the invoice\'s language with its formats', () => {
    const sut = toInvoiceDocumentView(makeInvoice({ locale: 'de-DE', service_period: { start: '2026-10-01', end: '2026-10-31' }, delivery_date: null }));
    expect(sut.lang).toBe('de-DE');
    expect(sut.title).toBe('Rechnung INV/2026/0042');
    expect(sut.fields).toEqual([
      { label: 'Rechnungsnummer', value: 'INV/2026/0042' },
      { label: 'Rechnungsdatum', value: '20.11.2026' },
      { label: 'Leistungszeitraum', value: '01.10.2026 – 31.10.2026' },
      { label: 'Fällig am', value: '20.12.2026' },
      { label: 'Käuferreferenz', value: '04011000-12345-34' },
      { label: 'Bestellnummer', value: 'PO-7781' },
      { label: 'Währung', value: 'EUR' },
    ]);
    expect(sut.total).toEqual({ label: 'Gesamtbetrag (EUR)', amount: '1.445,15\u00a0€' });
    expect(sut.billTo.addressLines.at(-1)).toBe('Deutschland');
    expect(sut.payment.terms).toBe('Bitte überweisen Sie 1.445,15\u00a0€ bis zum 20.12.2026.');
  });

  it('states why a group charges no VAT, with the legal wording for reverse charge and intra-community supply', () => {
    const sut = toInvoiceDocumentView(
      makeInvoice({
        locale: 'fr',
        lineInputs: [
          { description: 'Audit', unit_amount: 100_000, tax_category: 'AE', tax_exemption_reason: 'Reverse charge' },
          { description: 'Machine', unit_amount: 50_000, tax_category: 'K', tax_exemption_reason: 'Intra-community supply' },
          { description: 'Training', unit_amount: 20_000, tax_category: 'E', tax_exemption_reason: 'Exempt under Article 132(1)(i)' },
        ],
      }),
    );
    expect(sut.exemptions).toEqual(expect.arrayContaining([
      'Autoliquidation\u00a0: Reverse charge',
      'Autoliquidation\u00a0: la TVA est due par le preneur.',
      'Livraison intracommunautaire\u00a0: Intra-community supply',
      'Exonération de TVA, livraison intracommunautaire (article 138 de la directive 2006/112/CE).',
      'Exonéré de TVA\u00a0: Exempt under Article 132(1)(i)',
    ]));
    expect(sut.exemptions).toHaveLength(5);
  });

  it('offers a payment QR code only for a EUR invoice with a credit-transfer account', () => {
    expect(toInvoiceDocumentView(makeInvoice()).payment.qr?.svg).toMatch(/^<svg /);
    expect(toInvoiceDocumentView(makeInvoice({ currency: 'USD' })).payment.qr).toBeNull();
    const invoice = makeInvoice();
    expect(toInvoiceDocumentView({ ...invoice, business_snapshot: { ...invoice.business_snapshot!, payment_account: null } }).payment).toMatchObject({ account: null, qr: null });
  });

  it('is the same whatever happened to the invoice after finalization', () => {
    const open = makeInvoice();
    const paid = { ...open, status: 'paid' as const, amount_due: 0, amount_paid: open.total, paid_at: '2026-12-01T00:00:00.000Z' };
    const rotated = { ...open, public_url_token: 'new', public_url: 'http://localhost:8080/i/new', customer_name: 'Renamed Ltd' };
    expect(toInvoiceDocumentView(paid)).toEqual(toInvoiceDocumentView(open));
    expect(toInvoiceDocumentView(rotated)).toEqual(toInvoiceDocumentView(open));
  });

  it('refuses a draft, which has no document', () => {
    expect(() => toInvoiceDocumentView(makeInvoice({ number: null, business_snapshot: null, customer_snapshot: null, status: 'draft' }))).toThrow(/draft/);
  });

  it('prints on Letter for a seller in North America and on A4 elsewhere', () => {
    expect([paperFor('US'), paperFor('ca'), paperFor('DE'), paperFor('JP'), paperFor(null)]).toEqual(['Letter', 'Letter', 'A4', 'A4', 'A4']);
  });

  it('writes addresses without empty lines and names the country', () => {
    expect(addressLinesOf({ line1: '1 Main St', line2: '  ', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'US' })).toEqual([
      '1 Main St',
      'Springfield, IL 62701',
      'United States',
    ]);
    expect(addressLinesOf({ line1: null, line2: null, city: 'Wien', state: null, postal_code: '1010', country: 'AT' }, 'it')).toEqual(['1010 Wien', 'Austria']);
    expect(addressLinesOf({ line1: null, line2: null, city: null, state: null, postal_code: null, country: null })).toEqual([]);
  });

  it.each<[string, Address, string[]]>([
    ['DE', { line1: 'Hauptstraße 1', line2: null, city: 'München', state: 'Bayern', postal_code: '80331', country: 'DE' }, ['Hauptstraße 1', '80331 München', 'Germany']],
    ['FR', { line1: '12 rue de la Paix', line2: 'Bâtiment B', city: 'Paris', state: null, postal_code: '75002', country: 'FR' }, ['12 rue de la Paix', 'Bâtiment B', '75002 Paris', 'France']],
    ['GB', { line1: '10 Downing Street', line2: null, city: 'London', state: null, postal_code: 'SW1A 2AA', country: 'GB' }, ['10 Downing Street', 'London', 'SW1A 2AA', 'United Kingdom']],
    ['US', { line1: '1 Main St', line2: 'Suite 200', city: 'Springfield', state: 'IL', postal_code: '62701', country: 'us' }, ['1 Main St', 'Suite 200', 'Springfield, IL 62701', 'United States']],
    ['JP', { line1: '1-1 Chiyoda', line2: null, city: 'Chiyoda-ku', state: 'Tokyo', postal_code: '100-8111', country: 'JP' }, ['1-1 Chiyoda', 'Chiyoda-ku, Tokyo 100-8111', 'Japan']],
    ['no country', { line1: null, line2: 'c/o Front desk', city: 'Köln', state: null, postal_code: '50667', country: null }, ['c/o Front desk', '50667 Köln']],
  ])('writes a %s address as its post expects', (_, address, expected) => {
    expect(addressLinesOf(address)).toEqual(expected);
  });

  it('falls back to the house colour when the snapshot holds no usable brand colour', () => {
    const invoice = makeInvoice();
    const sut = toInvoiceDocumentView({ ...invoice, business_snapshot: { ...invoice.business_snapshot!, brand_color: 'red;}body{display:none' } });
    expect(sut.colors.brand).toMatch(/^#[0-9A-F]{6}$/);
  });

  it.each([
    ['#0B5FFF', { brand: '#0B5FFF', onBrand: '#FFFFFF', brandText: '#0B5FFF' }],
    ['#ffff00', { brand: '#FFFF00', onBrand: '#1B1F24', brandText: '#1B1F24' }],
    ['#F59E0B', { brand: '#F59E0B', onBrand: '#1B1F24', brandText: '#1B1F24' }],
    ['#000000', { brand: '#000000', onBrand: '#FFFFFF', brandText: '#000000' }],
  ])('keeps text readable (4.5:1) with brand colour %s', (chosen, expected) => {
    const sut = brandColorsOf(chosen);
    expect(sut).toEqual(expected);
    expect(contrastRatio(sut.brand, sut.onBrand)).toBeGreaterThanOrEqual(4.5);
    expect(contrastRatio(sut.brandText, '#FFFFFF')).toBeGreaterThanOrEqual(4.5);
  });
});
