import { describe, expect, it } from 'vitest';
import type { Address, PaymentMeans } from '@invoicing/contracts';
import { makeAdjustment, makeInvoice, makeRichInvoice } from '../../../test/support/invoices.ts';
import { fr } from './messages/fr.ts';
import { brandColorsOf, contrastRatio } from '@invoicing/i18n';
import { addressLinesOf, paperFor, toInvoiceDocumentView } from './invoice-view.domain.ts';
import { loadTemplates } from './templates.ts';

describe('the printed invoice view', () => {
  it('formats every line and total in the invoice currency, with the net amount and VAT of each VAT group', () => {
    const sut = toInvoiceDocumentView(makeInvoice({ currency: 'EUR' }));
    const plain = { period: null, sku: null, note: null, priceBase: null };
    expect(sut.lines).toEqual([
      { ...plain, description: 'Design workshop', quantity: '2', unitPrice: '€450.00', discount: '-€90.00 (10%)', taxRate: '19%', amount: '€810.00' },
      { ...plain, description: 'Printed brochures', quantity: '300', unitPrice: '€1.25', discount: null, taxRate: '7%', amount: '€375.00' },
      { ...plain, description: 'Travel', quantity: '1', unitPrice: '€89.90', discount: '-€9.90', taxRate: '0%', amount: '€80.00' },
    ]);
    expect(sut.totals).toEqual([
      { label: 'Subtotal', amount: '€1,364.90' },
      { label: 'Line discounts', amount: '-€99.90' },
      { label: 'Net amount', amount: '€1,265.00' },
      { label: 'Total VAT', amount: '€180.15' },
    ]);
    expect(sut.vatGroups).toEqual([
      { category: 'Taxable', rate: '19%', netAmount: '€810.00', vat: '€153.90' },
      { category: 'Taxable', rate: '7%', netAmount: '€375.00', vat: '€26.25' },
      { category: 'Zero rated', rate: '0%', netAmount: '€80.00', vat: '€0.00' },
    ]);
    expect(sut.total).toEqual({ label: 'Total (EUR)', amount: '€1,445.15' });
    // Nothing was paid before issue and VAT is accounted in the invoice currency: nothing more to say.
    expect([sut.settlement, sut.taxCurrency, sut.precedingInvoice, sut.taxRepresentative, sut.attachments, sut.legalInfo]).toEqual([[], null, null, null, [], null]);
    expect([sut.seller.details, sut.billTo.details, sut.payment.payee]).toEqual([[], [], null]);
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

  it('does not repeat a reason that only restates the category or its legal words', () => {
    const sut = (locale: string, reasons: { AE: string; K: string; E: string }) =>
      toInvoiceDocumentView(
        makeInvoice({
          locale,
          lineInputs: [
            { description: 'Audit', unit_amount: 100_000, tax_category: 'AE', tax_exemption_reason: reasons.AE },
            { description: 'Machine', unit_amount: 50_000, tax_category: 'K', tax_exemption_reason: reasons.K },
            { description: 'Training', unit_amount: 20_000, tax_category: 'E', tax_exemption_reason: reasons.E },
          ],
        }),
      ).exemptions;
    // In the order of the VAT groups.
    expect(sut('en', { AE: 'Reverse charge', K: 'intra-community supply.', E: 'Exempt from VAT' })).toEqual([
      'Exempt from VAT',
      'Reverse charge: the recipient is liable for the VAT.',
      'Exempt intra-community supply of goods (Article 138 of Directive 2006/112/EC).',
    ]);
    expect(sut('de', { AE: 'Steuerschuldnerschaft des Leistungsempfängers', K: 'Innergemeinschaftliche Lieferung', E: 'Steuerfrei nach § 4 Nr. 21 UStG' })).toEqual([
      'Steuerbefreit: Steuerfrei nach § 4 Nr. 21 UStG',
      'Steuerschuldnerschaft des Leistungsempfängers.',
      'Steuerfreie innergemeinschaftliche Lieferung (Art. 138 MwStSystRL).',
    ]);
  });

  it('offers a payment QR code only for a EUR invoice with a credit-transfer account', () => {
    expect(toInvoiceDocumentView(makeInvoice()).payment.qr?.svg).toMatch(/^<svg /);
    expect(toInvoiceDocumentView(makeInvoice({ currency: 'USD' })).payment.qr).toBeNull();
    const invoice = makeInvoice();
    expect(toInvoiceDocumentView({ ...invoice, payment_means: [], business_snapshot: { ...invoice.business_snapshot!, payment_account: null } }).payment).toMatchObject({ means: [], qr: null });
  });

  describe('the EN 16931 terms beyond the first set', () => {
    const sut = toInvoiceDocumentView(makeRichInvoice());

    it('writes decimal quantities and prices exactly, the price base, item numbers and notes', () => {
      expect(sut.lines).toEqual([
        {
          description: 'Consulting',
          period: null,
          sku: 'Item no. CONS-01',
          note: 'On site in Köln, 3 and 4 November',
          quantity: '7.5 hours',
          unitPrice: '€120.00',
          priceBase: null,
          discount: null,
          taxRate: '19%',
          amount: '€900.00',
        },
        { description: 'Cloud storage (GB-hours)', period: null, sku: null, note: null, quantity: '2,500', unitPrice: '€0.00125', priceBase: null, discount: null, taxRate: '19%', amount: '€3.13' },
        {
          description: 'Standard screws M4',
          period: null,
          sku: 'Item no. SCR-M4',
          note: null,
          quantity: '1,500',
          unitPrice: '€8.50',
          priceBase: 'per 100',
          discount: '-€12.75 (10%)',
          taxRate: '19%',
          amount: '€114.75',
        },
        { description: 'Safety training', period: null, sku: null, note: null, quantity: '1', unitPrice: '€200.00', priceBase: null, discount: null, taxRate: '0%', amount: '€200.00' },
      ]);
    });

    it('goes from the lines to the amount due: line discounts, each allowance and charge, VAT, the prepaid amount', () => {
      expect(sut.totals).toEqual([
        { label: 'Subtotal', amount: '€1,230.63' },
        { label: 'Line discounts', amount: '-€12.75' },
        { label: 'Allowance: Framework agreement (5% of €900.00)', amount: '-€45.00' },
        { label: 'Charge: Freight', amount: '€15.00' },
        { label: 'Net amount', amount: '€1,187.88' },
        { label: 'Total VAT', amount: '€187.70' },
      ]);
      expect(sut.total).toEqual({ label: 'Total (EUR)', amount: '€1,375.58' });
      expect(sut.settlement).toEqual([
        { label: 'Prepaid amount', amount: '-€500.00' },
        { label: 'Amount due (EUR)', amount: '€875.58' },
      ]);
      // The VAT groups are billing's, their bases with the allowance and the charge.
      expect(sut.vatGroups).toEqual([
        { category: 'Taxable', rate: '19%', netAmount: '€987.88', vat: '€187.70' },
        { category: 'Exempt from VAT', rate: '0%', netAmount: '€200.00', vat: '€0.00' },
      ]);
      expect(sut.taxCurrency).toBe('VAT in HUF: HUF\u00a073,437.63, rate 1 EUR = 391.25 HUF');
      expect(sut.payment.terms).toBe('Please pay €875.58 by 20 Dec 2026.');
    });

    it('asks for nothing, and offers no QR code, when the prepayment covered the whole total', () => {
      const invoice = makeInvoice({ prepaid_amount: 144_515 });
      expect(toInvoiceDocumentView(invoice).settlement.at(-1)).toEqual({ label: 'Amount due (EUR)', amount: '€0.00' });
      expect(toInvoiceDocumentView(invoice).payment).toMatchObject({ terms: 'Paid in advance: nothing is due.', qr: null });
      expect(toInvoiceDocumentView({ ...invoice, locale: 'de' }).payment.terms).toBe('Bereits vorausbezahlt: Es ist nichts zu zahlen.');
    });

    it('names an allowance or charge given only by its code, and one with neither percentage nor base plainly', () => {
      const invoice = makeInvoice({
        allowances: [makeAdjustment({ amount: 1_000, reason_code: '95', tax_rate: 19 })],
        charges: [makeAdjustment({ percent: 2.5, base_amount: 81_000, reason: 'Verpackung', reason_code: 'ABL', tax_rate: 19 })],
        locale: 'de-DE',
      });
      expect(toInvoiceDocumentView(invoice).totals.slice(2, 4)).toEqual([
        { label: 'Nachlass: Code 95', amount: '-10,00\u00a0€' },
        { label: 'Zuschlag: Verpackung (2,5\u00a0% von 810,00\u00a0€)', amount: '20,25\u00a0€' },
      ]);
    });

    it('states an exemption given only by its VATEX code in words, with the code', () => {
      expect(sut.exemptions).toEqual(['Exempt from VAT: Exempt under Article 132 (1) (i) of Council Directive 2006/112/EC (VATEX-EU-132-1I)']);
      const coded = (locale: string, code: string, category: 'E' | 'AE' = 'E') =>
        toInvoiceDocumentView(makeInvoice({ locale, lineInputs: [{ description: 'x', unit_amount: 100, tax_category: category, tax_exemption_reason_code: code }] })).exemptions;
      expect(coded('fr', 'VATEX-FR-FRANCHISE')).toEqual(['Exonéré de TVA\u00a0: TVA non applicable, art. 293 B du CGI (VATEX-FR-FRANCHISE)']);
      expect(coded('de', 'VATEX-EU-79-C')).toEqual(['Steuerbefreit: Steuerbefreit nach Artikel 79 (c) der Richtlinie 2006/112/EG (VATEX-EU-79-C)']);
      // A code the category already names, or one without a sentence here: the code itself.
      expect(coded('en', 'VATEX-EU-AE', 'AE')).toEqual(['Reverse charge (VATEX-EU-AE)', 'Reverse charge: the recipient is liable for the VAT.']);
      expect(coded('en', 'VATEX-EU-D')).toEqual(['Exempt from VAT (VATEX-EU-D)']);
      // A reason given in words comes first.
      const both = makeInvoice({ lineInputs: [{ description: 'x', unit_amount: 100, tax_category: 'E', tax_exemption_reason: 'Medical care', tax_exemption_reason_code: 'VATEX-EU-132-1C' }] });
      expect(toInvoiceDocumentView(both).exemptions).toEqual(['Exempt from VAT: Medical care (VATEX-EU-132-1C)']);
    });

    it('names both parties as they identify themselves, the tax representative and the preceding invoice', () => {
      expect(sut.seller.details).toEqual([
        { label: 'Trading name', value: 'Acme Studio' },
        { label: 'Registration no.', value: 'HRB 12345' },
      ]);
      expect(sut.billTo.details).toEqual([
        { label: 'Customer ID', value: '4000001987658' },
        { label: 'Contact', value: 'Erika Mustermann' },
      ]);
      expect(sut.taxRepresentative).toEqual({ name: 'Fiscal Representation SARL', addressLines: ['12 rue de la Paix', '75002 Paris', 'France'], vatId: 'FR61123456789', email: null, details: [] });
      expect(sut.precedingInvoice).toBe('Refers to invoice INV/2026/0017 of 15 Oct 2026.');
      expect(toInvoiceDocumentView(makeRichInvoice({ preceding_invoice: { number: 'A-17', issue_date: null } })).precedingInvoice).toBe('Refers to invoice A-17.');
      expect(sut.legalInfo).toBe('Registered at Amtsgericht Köln, HRB 12345. Managing director: Jana Beispiel.');
      expect(sut.attachments).toEqual(['timesheet-november.csv (Timesheet November)', 'delivery-note.pdf']);
    });

    it('lists every account to pay into and the payee, the QR code for the first account', () => {
      expect(sut.payment).toMatchObject({
        payee: 'Factoring Bank AG',
        means: [
          {
            text: null,
            fields: [
              { label: 'Account holder', value: 'Factoring Bank AG' },
              { label: 'IBAN', value: 'DE89 3704 0044 0532 0130 00' },
              { label: 'BIC', value: 'COBADEFFXXX' },
            ],
          },
          { text: 'For payments from Austria', fields: [{ label: 'IBAN', value: 'AT61 1904 3002 3457 3201' }] },
        ],
        qr: { caption: 'Scan with your banking app to pay by SEPA credit transfer.' },
      });
    });

    const withMeans = (locale: string, means: Partial<PaymentMeans> & Pick<PaymentMeans, 'type'>) => {
      const invoice = makeInvoice({ locale });
      const entry: PaymentMeans = { information: null, iban: null, bic: null, account_name: null, mandate_reference: null, creditor_id: null, debited_iban: null, card_last4: null, card_holder: null, ...means };
      return toInvoiceDocumentView({ ...invoice, payment_means: [entry] }).payment;
    };

    it.each([
      ['en-GB', '€1,445.15 will be debited from IBAN DE02 1203 0000 0000 2020 51 by SEPA direct debit.', 'Mandate reference', 'Creditor ID'],
      ['de-DE', '1.445,15\u00a0€ wird per SEPA-Lastschrift von der IBAN DE02 1203 0000 0000 2020 51 eingezogen.', 'Mandatsreferenz', 'Gläubiger-ID'],
    ])('says in %s what a direct debit will take, from where, under which mandate, and offers no QR code', (locale, terms, mandate, creditor) => {
      const sut = withMeans(locale, { type: 'sepa_direct_debit', debited_iban: 'DE02120300000000202051', mandate_reference: 'MANDATE-0042', creditor_id: 'DE98ZZZ09999999999' });
      expect(sut.terms).toBe(terms);
      expect(sut.means).toEqual([{ text: null, fields: [{ label: mandate, value: 'MANDATE-0042' }, { label: creditor, value: 'DE98ZZZ09999999999' }] }]);
      expect(sut.qr).toBeNull();
    });

    it('says a card paid, PayPal and other means in their words', () => {
      expect(withMeans('en-GB', { type: 'card', card_last4: '1234', card_holder: 'Erika Mustermann' })).toMatchObject({
        terms: '€1,445.15 paid by card ending in 1234.',
        means: [{ text: null, fields: [{ label: 'Card holder', value: 'Erika Mustermann' }] }],
        qr: null,
      });
      expect(withMeans('de-DE', { type: 'card', card_last4: '1234' }).terms).toBe('1.445,15\u00a0€ bezahlt mit der Karte mit den Endziffern 1234.');
      expect(withMeans('en-GB', { type: 'paypal' })).toMatchObject({ terms: 'Please pay €1,445.15 by 20 Dec 2026.', means: [{ text: 'Pay with PayPal.', fields: [] }], qr: null });
      expect(withMeans('en-GB', { type: 'other', information: 'Cash at our office' }).means).toEqual([{ text: 'Cash at our office', fields: [] }]);
      expect(withMeans('en-GB', { type: 'other' }).means).toEqual([]);
    });

    it.each([
      ['de-DE', 'Vorauszahlung', 'Zahlbetrag (EUR)', 'Steuervertreter', 'Anlagen', 'Zahlungsempfänger'],
      ['fr-FR', 'Acompte versé', 'Net à payer (EUR)', 'Représentant fiscal', 'Pièces justificatives', 'Bénéficiaire du paiement'],
      ['es-ES', 'Pagado por anticipado', 'Importe a pagar (EUR)', 'Representante fiscal', 'Documentos justificativos', 'Beneficiario del pago'],
      ['it-IT', 'Acconto versato', 'Netto a pagare (EUR)', 'Rappresentante fiscale', 'Documenti allegati', 'Beneficiario del pagamento'],
      ['nl-NL', 'Vooruitbetaald bedrag', 'Te betalen (EUR)', 'Fiscaal vertegenwoordiger', 'Bijlagen', 'Begunstigde'],
    ])('labels the new terms in %s', (locale, prepaid, due, representative, attachments, payee) => {
      const sut = toInvoiceDocumentView(makeRichInvoice({ locale }));
      expect(sut.settlement.map((row) => row.label)).toEqual([prepaid, due]);
      expect([sut.labels.tax_representative, sut.labels.attachments, sut.labels.payment_to]).toEqual([representative, attachments, payee]);
    });

    it('writes a unit price per 100 and quantities with their unit in each language', () => {
      const invoice = makeInvoice({
        locale: 'de-DE',
        lineInputs: [
          { description: 'Schrauben', quantity_decimal: '1500', unit_amount_decimal: '850', price_base_quantity: '100.00', tax_rate: 19 },
          { description: 'Beratung', quantity_decimal: '7.5', unit_code: 'HUR', unit_amount_decimal: '0.125', tax_rate: 19 },
          { description: 'Sand', quantity_decimal: '2.25', unit_code: 'KGM', unit_amount: 100, tax_rate: 19 },
        ],
      });
      expect(toInvoiceDocumentView(invoice).lines.map(({ quantity, unitPrice, priceBase }) => [quantity, unitPrice, priceBase])).toEqual([
        ['1.500', '8,50\u00a0€', 'je 100'],
        ['7,5 Stunden', '0,00125\u00a0€', null],
        ['2,25 kg', '1,00\u00a0€', null],
      ]);
    });
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

describe('the test mode marker of the printed invoice', () => {
  it('is on a test invoice, in its language, and printed above it; a live invoice has none', () => {
    const templates = loadTemplates();
    const test = toInvoiceDocumentView({ ...makeInvoice({ locale: 'de' }), livemode: false });
    const live = toInvoiceDocumentView(makeInvoice({ locale: 'de' }));

    expect(test.testMode).toMatch(/^Testmodus/);
    expect(live.testMode).toBeNull();
    expect(templates.pdfJob(test).body).toContain(`<p class="test-mode-print">${test.testMode}</p>`);
    expect(templates.pdfJob(live).body).not.toContain('test-mode-print');
  });
});

describe('the French messages', () => {
  it('keep a colon, semicolon, question or exclamation mark on the line of its word (a no-break space before it, never a plain one)', () => {
    const broken = Object.entries(fr).filter(([, message]) => / [:;?!]/.test(message));
    expect(broken).toEqual([]);
  });

  it('say how a direct debit is collected without repeating themselves', () => {
    const sut = toInvoiceDocumentView({
      ...makeInvoice({ locale: 'fr' }),
      payment_means: [{ type: 'sepa_direct_debit', information: null, iban: null, bic: null, account_name: null, mandate_reference: 'M-1', creditor_id: 'DE98ZZZ09999999999', debited_iban: 'DE02120300000000202051', card_last4: null, card_holder: null }],
    });
    expect(sut.payment.terms).toBe('1\u202f445,15\u00a0€ sera prélevé sur l’IBAN DE02 1203 0000 0000 2020 51 (prélèvement SEPA).');
  });
});
