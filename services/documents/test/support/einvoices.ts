import { PNG } from 'pngjs';
import { PDFDocument, StandardFonts } from 'pdf-lib';
import {
  totalsOf,
  type EInvoice,
  type EInvoiceAllowanceCharge,
  type EInvoiceAttachment,
  type EInvoiceLine,
  type EInvoicePaymentMeans,
  type EInvoicePeriod,
  type EInvoiceTaxGroup,
  type TaxCategory,
} from '../../src/modules/einvoices/einvoice.domain.ts';

// decisions.md arithmetic, in integers: round half up on non-negative amounts.
const halfUp = (numerator: bigint, denominator: bigint): number => Number((numerator * 2n + denominator) / (denominator * 2n));

/** An exact decimal string as a fraction: `7.5` → 75 / 10. */
const fraction = (decimal: string): [bigint, bigint] => {
  const [whole, decimals = ''] = decimal.split('.');
  return [BigInt(`${whole}${decimals}`), 10n ** BigInt(decimals.length)];
};

export interface LineSpec {
  description: string;
  quantity?: string;
  unitAmount: string;
  priceBaseQuantity?: string;
  unitCode?: string;
  discountPercent?: number;
  taxCategory?: TaxCategory;
  taxRate?: number;
  taxExemptionReason?: string | null;
  taxExemptionReasonCode?: string | null;
  note?: string | null;
  sellerItemId?: string | null;
  standardItemId?: { value: string; scheme: string | null } | null;
  period?: EInvoicePeriod | null;
}

/** A line as billing prices it: round_half_up(quantity × unit amount ÷ base quantity) − discount. */
export const line = (spec: LineSpec, position = 1): EInvoiceLine => {
  const quantity = spec.quantity ?? '1';
  const base = spec.priceBaseQuantity ?? '1';
  const [qn, qd] = fraction(quantity);
  const [pn, pd] = fraction(spec.unitAmount);
  const [bn, bd] = fraction(base);
  const subtotal = halfUp(qn * pn * bd, qd * pd * bn);
  const discountAmount = spec.discountPercent === undefined ? 0 : halfUp(BigInt(subtotal) * BigInt(Math.round(spec.discountPercent * 100)), 10_000n);
  const taxRate = spec.taxRate ?? 19;
  return {
    position,
    description: spec.description,
    quantity,
    unitCode: spec.unitCode ?? 'C62',
    unitAmount: spec.unitAmount,
    priceBaseQuantity: base,
    subtotal,
    discountAmount,
    discountPercent: spec.discountPercent ?? null,
    netAmount: subtotal - discountAmount,
    taxCategory: spec.taxCategory ?? (taxRate > 0 ? 'S' : 'Z'),
    taxRate,
    taxExemptionReason: spec.taxExemptionReason ?? null,
    taxExemptionReasonCode: spec.taxExemptionReasonCode ?? null,
    note: spec.note ?? null,
    sellerItemId: spec.sellerItemId ?? null,
    standardItemId: spec.standardItemId ?? null,
    period: spec.period ?? null,
  };
};

/** An allowance or charge given as an amount, or as a percentage of a base (`amount = round_half_up(base × percent / 100)`). */
export const allowanceCharge = (
  spec: { amount: number } | { percent: number; baseAmount: number },
  rest: Partial<Omit<EInvoiceAllowanceCharge, 'amount' | 'percent' | 'baseAmount'>> = {},
): EInvoiceAllowanceCharge => ({
  ...('amount' in spec
    ? { amount: spec.amount, percent: null, baseAmount: null }
    : { amount: halfUp(BigInt(spec.baseAmount) * BigInt(Math.round(spec.percent * 10_000)), 1_000_000n), percent: spec.percent, baseAmount: spec.baseAmount }),
  reason: rest.reason ?? null,
  reasonCode: rest.reasonCode ?? null,
  taxCategory: rest.taxCategory ?? 'S',
  taxRate: rest.taxRate ?? 19,
});

/**
 * The VAT breakdown and document totals billing would freeze for these lines, allowances and
 * charges: one group per category and rate, its base including the document allowances and
 * charges, its tax rounded once (BR-CO-17); the exemption reason is the group's first line's.
 */
export const priced = (einvoice: EInvoice): EInvoice => {
  const groups = new Map<string, EInvoiceTaxGroup>();
  const groupOf = (category: TaxCategory, rate: number): EInvoiceTaxGroup => {
    const key = `${category}/${rate}`;
    let group = groups.get(key);
    if (!group) {
      group = { category, rate, taxableAmount: 0, taxAmount: 0, exemptionReason: null, exemptionReasonCode: null };
      groups.set(key, group);
    }
    return group;
  };
  for (const each of einvoice.lines) {
    const group = groupOf(each.taxCategory, each.taxRate);
    group.taxableAmount += each.netAmount;
    group.exemptionReason ??= each.taxExemptionReason;
    group.exemptionReasonCode ??= each.taxExemptionReasonCode;
  }
  for (const allowance of einvoice.allowances) groupOf(allowance.taxCategory, allowance.taxRate).taxableAmount -= allowance.amount;
  for (const charge of einvoice.charges) groupOf(charge.taxCategory, charge.taxRate).taxableAmount += charge.amount;
  const taxGroups = [...groups.values()].map((group) => ({ ...group, taxAmount: halfUp(BigInt(group.taxableAmount) * BigInt(Math.round(group.rate * 10_000)), 1_000_000n) }));
  const taxTotal = taxGroups.reduce((total, group) => total + group.taxAmount, 0);
  return { ...einvoice, taxGroups, totals: totalsOf({ ...einvoice, taxTotal, prepaid: einvoice.totals.prepaid }) };
};

export const creditTransfer = (iban: string, name: string | null = null, bic: string | null = null): EInvoicePaymentMeans => ({
  code: '58',
  information: null,
  account: { iban, name, bic },
  directDebit: null,
  card: null,
});

const GERMAN_ADDRESS = { line1: 'Hauptstraße 1', line2: null, city: 'Köln', state: null, postal_code: '50667', country: 'DE' };

/**
 * A plain finalized e-invoice that every profile accepts (one standard-rated line, paid by credit
 * transfer, every party XRechnung needs); focused cases change one thing and call `priced`.
 */
export const makeEInvoice = (overrides: Partial<EInvoice> = {}): EInvoice =>
  priced({
    number: 'INV-2026-0100',
    paymentReference: 'RF18539007547034',
    issueDate: '2026-11-20',
    dueDate: '2026-12-20',
    currency: 'EUR',
    taxCurrency: null,
    buyerReference: '04011000-12345-03',
    purchaseOrder: null,
    precedingInvoice: null,
    deliveryDate: '2026-11-18',
    invoicePeriod: null,
    notes: [],
    paymentTerms: 'Payable within 30 days',
    seller: {
      name: 'Seller GmbH',
      address: GERMAN_ADDRESS,
      taxId: 'DE123456789',
      electronicAddress: { value: 'billing@seller.example', scheme: 'EM' },
      contact: { name: 'Max Muster', phone: '+49 221 123456', email: 'billing@seller.example' },
      tradingName: null,
      legalRegistrationId: null,
      legalInfo: null,
    },
    buyer: {
      name: 'Müller & Söhne GmbH',
      address: { line1: 'Domplatz 5', line2: null, city: 'Düsseldorf', state: null, postal_code: '40213', country: 'DE' },
      taxId: 'DE987654321',
      electronicAddress: { value: 'ap@mueller.example', scheme: 'EM' },
      identifier: null,
      contactName: null,
    },
    payee: null,
    taxRepresentative: null,
    paymentMeans: [creditTransfer('DE89370400440532013000', 'Seller GmbH', 'COBADEFFXXX')],
    allowances: [],
    charges: [],
    lines: [line({ description: 'Consulting hours', quantity: '12', unitCode: 'HUR', unitAmount: '9500', taxRate: 19 })],
    taxGroups: [],
    totals: totalsOf({ lines: [], allowances: [], charges: [], taxTotal: 0, prepaid: 0 }),
    attachments: [],
    ...overrides,
  });

/** A one-page PDF, a 4×4 PNG and a CSV: real files of three of the types BR-CL-24 admits. */
export const supportingFiles = async (): Promise<EInvoiceAttachment[]> => {
  const pdf = await PDFDocument.create();
  pdf.setCreationDate(new Date('2026-11-01T00:00:00Z'));
  pdf.setModificationDate(new Date('2026-11-01T00:00:00Z'));
  const page = pdf.addPage([595, 842]);
  page.drawText('Timesheet November 2026', { x: 50, y: 780, size: 18, font: await pdf.embedFont(StandardFonts.Helvetica) });
  const png = new PNG({ width: 4, height: 4 });
  png.data.fill(0x80);
  return [
    { id: 'att_timesheet', filename: 'timesheet.pdf', contentType: 'application/pdf', description: 'Timesheet', content: Buffer.from(await pdf.save({ useObjectStreams: false })) },
    { id: 'att_photo', filename: 'delivery.png', contentType: 'image/png', description: 'Proof of delivery', content: PNG.sync.write(png) },
    { id: 'att_usage', filename: 'usage.csv', contentType: 'text/csv', description: null, content: Buffer.from('date;hours\n2026-11-02;7.5\n', 'utf8') },
  ];
};


/** A valid GTIN-13 (ISO 6523 ICD 0160) and a GLN (0088), check digits right. */
export const GTIN = '4006381333931';
export const GLN = '4000001000005';

/**
 * Every business term the API can give, on one invoice: decimal quantities and prices with a
 * base quantity, an exempt group with its VATEX code, allowances and charges (one as a
 * percentage), a prepaid amount, VAT in a second currency, two credit-transfer accounts, payee,
 * tax representative, the parties' further identifiers, a preceding invoice and three supporting documents.
 */
export const richEInvoice = (attachments: EInvoiceAttachment[]): EInvoice => {
  const base = makeEInvoice();
  return priced({
    ...base,
    purchaseOrder: 'PO-7781',
    precedingInvoice: { number: 'INV-2026-0001', issueDate: '2026-10-01' },
    notes: ['Thank you for your order.'],
    taxCurrency: { code: 'HUF', taxTotal: 5_208_340 },
    seller: {
      ...base.seller,
      tradingName: 'Seller Digital',
      legalRegistrationId: { value: '123456789', scheme: '0060' },
      legalInfo: 'Geschäftsführer: Max Muster; Amtsgericht Köln HRB 12345',
    },
    buyer: { ...base.buyer, identifier: { value: GLN, scheme: '0088' }, contactName: 'Erika Mustermann' },
    payee: { name: 'Factoring Bank AG', identifier: 'PAYEE-7', legalRegistrationId: 'HRB 99999' },
    taxRepresentative: {
      name: 'Steuervertretung GmbH',
      vatId: 'DE111222333',
      address: { line1: 'Zeil 10', line2: null, city: 'Frankfurt am Main', state: null, postal_code: '60313', country: 'DE' },
    },
    paymentMeans: [
      { ...creditTransfer('DE89370400440532013000', 'Factoring Bank AG', 'COBADEFFXXX'), information: 'SEPA credit transfer' },
      { ...creditTransfer('DE02120300000000202051', 'Factoring Bank AG Berlin', 'BYLADEM1001'), information: 'SEPA credit transfer' },
    ],
    lines: [
      line({ description: 'Consulting hours', quantity: '7.5', unitCode: 'HUR', unitAmount: '9500', note: 'On site in Köln', sellerItemId: 'CONS-01', standardItemId: { value: GTIN, scheme: '0160' } }, 1),
      line({ description: 'Metered compute', quantity: '7.5', unitCode: 'HUR', unitAmount: '0.125' }, 2),
      line({ description: 'Labels', quantity: '1000', unitAmount: '12.5', priceBaseQuantity: '100' }, 3),
      line(
        {
          description: 'Vocational training course',
          unitAmount: '120000',
          taxCategory: 'E',
          taxRate: 0,
          taxExemptionReason: 'Exempt under § 4 Nr. 21 UStG',
          taxExemptionReasonCode: 'VATEX-EU-132-1I',
        },
        4,
      ),
    ],
    allowances: [
      allowanceCharge({ percent: 5, baseAmount: 71_250 }, { reason: 'Loyalty discount', reasonCode: '95' }),
      allowanceCharge({ amount: 1_000 }, { reason: 'Course voucher', taxCategory: 'E', taxRate: 0 }),
    ],
    charges: [allowanceCharge({ amount: 1_500 }, { reason: 'Freight', reasonCode: 'FC' })],
    totals: { ...base.totals, prepaid: 50_000 },
    attachments,
  });
};
