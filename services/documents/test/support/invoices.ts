import { randomUUID } from 'node:crypto';
import type { EinvoiceShape } from './einvoice-shapes.ts';
import {
  categoryTaxOf,
  defaultTaxCategory,
  einvoiceReadiness,
  minorUnitExponent,
  taxBreakdownOf,
  taxGroupKey,
  toPublicId,
  type DocumentAllowanceCharge,
  type Invoice,
  type InvoiceLine,
  type TaxBreakdownEntry,
  type TaxCategory,
} from '@invoicing/contracts';

interface LineFields {
  description: string;
  quantity?: number;
  /** Instead of `quantity`: `"7.5"`. */
  quantity_decimal?: string;
  price_base_quantity?: string;
  tax_rate?: number;
  discount?: { amount_off: number } | { percent_off: number };
  unit_code?: string;
  tax_category?: TaxCategory;
  tax_exemption_reason?: string;
  tax_exemption_reason_code?: string;
  sku?: string;
  standard_id?: string;
  standard_id_scheme?: string;
  note?: string;
}

/** A line as sent to billing: `unit_amount`, or `unit_amount_decimal` (minor units with decimals, `"0.125"`). */
export type LineInput = LineFields & ({ unit_amount: number; unit_amount_decimal?: undefined } | { unit_amount_decimal: string; unit_amount?: undefined });

// decisions.md arithmetic, in integers: round half up (half away from zero).
const halfUp = (numerator: bigint, denominator: bigint) => {
  const magnitude = ((numerator < 0n ? -numerator : numerator) * 2n + denominator) / (denominator * 2n);
  return Number(numerator < 0n ? -magnitude : magnitude);
};

/** A decimal string as an integer and its scale: `"7.5"` → [75n, 1]. */
const scaled = (value: string): [bigint, number] => {
  const [whole, fraction = ''] = value.split('.');
  return [BigInt(`${whole}${fraction}`), fraction.length];
};

/** round_half_up(quantity × unit amount / price base quantity), exactly. */
const lineSubtotalOf = (quantity: string, unitAmount: string, baseQuantity: string): number => {
  const [q, qScale] = scaled(quantity);
  const [u, uScale] = scaled(unitAmount);
  const [b, bScale] = scaled(baseQuantity);
  return halfUp(q * u * 10n ** BigInt(bScale), b * 10n ** BigInt(qScale + uScale));
};

const roundedDecimal = (value: string): number => {
  const [digits, scale] = scaled(value);
  return halfUp(digits, 10n ** BigInt(scale));
};

const toLine = (input: LineInput): InvoiceLine => {
  const quantityDecimal = input.quantity_decimal ?? String(input.quantity ?? 1);
  const unitAmountDecimal = input.unit_amount_decimal ?? String(input.unit_amount ?? 0);
  const priceBaseQuantity = input.price_base_quantity ?? '1';
  const quantity = roundedDecimal(quantityDecimal);
  const unitAmount = roundedDecimal(unitAmountDecimal);
  const taxRate = input.tax_rate ?? 0;
  const subtotal = lineSubtotalOf(quantityDecimal, unitAmountDecimal, priceBaseQuantity);
  const discount = input.discount;
  const discountAmount =
    discount === undefined ? 0 : 'amount_off' in discount ? discount.amount_off : halfUp(BigInt(subtotal) * BigInt(Math.round(discount.percent_off * 100)), 10_000n);
  const amount = subtotal - discountAmount;
  return {
    id: toPublicId('invoiceItem', randomUUID()),
    object: 'invoiceitem',
    livemode: true,
    price: null,
    product: null,
    description: input.description,
    quantity,
    unit_amount: unitAmount,
    discount: discount ?? null,
    discount_amount: discountAmount,
    tax_rate: taxRate,
    amount,
    tax: halfUp(BigInt(amount) * BigInt(Math.round(taxRate * 10_000)), 1_000_000n),
    unit_code: input.unit_code ?? 'C62',
    tax_category: input.tax_category ?? defaultTaxCategory(taxRate),
    tax_exemption_reason: input.tax_exemption_reason ?? null,
    period: null,
    quantity_decimal: quantityDecimal,
    unit_amount_decimal: unitAmountDecimal,
    price_base_quantity: priceBaseQuantity,
    tax_exemption_reason_code: input.tax_exemption_reason_code ?? null,
    sku: input.sku ?? null,
    standard_id: input.standard_id ?? null,
    standard_id_scheme: input.standard_id_scheme ?? null,
    note: input.note ?? null,
  };
};

/** A document-level allowance or charge as the invoice reads it; by percentage when `percent` and `base_amount` are given. */
export const makeAdjustment = (
  input: Partial<DocumentAllowanceCharge> & Pick<DocumentAllowanceCharge, 'tax_rate'> & ({ amount: number } | { percent: number; base_amount: number }),
): DocumentAllowanceCharge => {
  const percent = input.percent ?? null;
  const baseAmount = input.base_amount ?? null;
  const amount = percent !== null && baseAmount !== null ? halfUp(BigInt(baseAmount) * BigInt(Math.round(percent * 100)), 10_000n) : input.amount!;
  return {
    amount,
    percent,
    base_amount: baseAmount,
    reason: input.reason ?? null,
    reason_code: input.reason_code ?? null,
    tax_category: input.tax_category ?? defaultTaxCategory(input.tax_rate),
    tax_rate: input.tax_rate,
  };
};

/** Each VAT group's base with the allowances taken off and the charges added, its tax computed again (BR-CO-17). */
const adjustedBreakdown = (lines: InvoiceLine[], allowances: DocumentAllowanceCharge[], charges: DocumentAllowanceCharge[]): TaxBreakdownEntry[] => {
  const groups = new Map(taxBreakdownOf(lines).map((group) => [taxGroupKey(group), group]));
  const adjust = (adjustment: DocumentAllowanceCharge, sign: number) => {
    const key = taxGroupKey(adjustment);
    const group = groups.get(key) ?? { tax_category: adjustment.tax_category, tax_rate: adjustment.tax_rate, taxable_amount: 0, tax: 0, tax_exemption_reason: null };
    groups.set(key, { ...group, taxable_amount: group.taxable_amount + sign * adjustment.amount });
  };
  for (const allowance of allowances) adjust(allowance, -1);
  for (const charge of charges) adjust(charge, 1);
  return [...groups.values()].map((group) => ({ ...group, tax: Number(categoryTaxOf(BigInt(group.taxable_amount), group.tax_rate)) }));
};

/** round_half_up(tax total × rate), from minor units of one currency into minor units of the other. */
const inTaxCurrency = (taxTotal: number, currency: string, taxCurrency: string, rate: string): number => {
  const [digits, scale] = scaled(rate);
  return halfUp(BigInt(taxTotal) * digits * 10n ** BigInt(minorUnitExponent(taxCurrency)), 10n ** BigInt(scale + minorUnitExponent(currency)));
};

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

export const DEFAULT_LINES: LineInput[] = [
  { description: 'Design workshop', quantity: 2, unit_amount: 45_000, tax_rate: 19, discount: { percent_off: 10 } },
  { description: 'Printed brochures', quantity: 300, unit_amount: 125, tax_rate: 7 },
  { description: 'Travel', unit_amount: 8_990, tax_rate: 0, discount: { amount_off: 990 } },
];

/** A finalized invoice as billing's API returns it, totals computed from its lines. */
export const makeInvoice = (overrides: Partial<Invoice> & { lineInputs?: LineInput[] } = {}): Invoice => {
  const { lineInputs = DEFAULT_LINES, allowances = [], charges = [], prepaid_amount: prepaidAmount = 0, ...rest } = overrides;
  const lines = lineInputs.map(toLine);
  const subtotal = sum(lines.map((line) => line.amount + line.discount_amount));
  const discountTotal = sum(lines.map((line) => line.discount_amount));
  const allowanceTotal = sum(allowances.map((allowance) => allowance.amount));
  const chargeTotal = sum(charges.map((charge) => charge.amount));
  // Tax per VAT category and rate, rounded once per group (BR-CO-17), as billing charges it.
  const breakdown = adjustedBreakdown(lines, allowances, charges);
  const taxTotal = sum(breakdown.map((group) => group.tax));
  const taxableAmount = subtotal - discountTotal - allowanceTotal + chargeTotal;
  const total = taxableAmount + taxTotal;
  const currency = rest.currency ?? 'EUR';
  const taxCurrency = rest.tax_currency ?? null;
  const taxExchangeRate = rest.tax_exchange_rate ?? null;
  const id = rest.id ?? toPublicId('invoice', randomUUID());
  const token = rest.public_url_token ?? randomUUID().replaceAll('-', '');
  const invoice: Invoice = {
    id,
    object: 'invoice',
    livemode: true,
    subscription: null,
    number: 'INV/2026/0042',
    status: 'open',
    customer: toPublicId('customer', randomUUID()),
    customer_name: 'Müller & Söhne GmbH',
    currency,
    collection_method: 'send_invoice',
    issue_date: '2026-11-20',
    due_date: '2026-12-20',
    days_until_due: 30,
    subtotal,
    discount_total: discountTotal,
    allowance_total: allowanceTotal,
    charge_total: chargeTotal,
    taxable_amount: taxableAmount,
    tax_total: taxTotal,
    total,
    prepaid_amount: prepaidAmount,
    allowances,
    charges,
    tax_currency: taxCurrency,
    tax_exchange_rate: taxExchangeRate,
    tax_total_in_tax_currency: taxCurrency && taxExchangeRate ? inTaxCurrency(taxTotal, currency, taxCurrency, taxExchangeRate) : null,
    // As billing freezes it: the seller's payment account is its first credit transfer.
    payment_means: [
      {
        type: 'credit_transfer',
        information: null,
        iban: 'DE89370400440532013000',
        bic: 'COBADEFFXXX',
        account_name: 'Acme Design Studio',
        mandate_reference: null,
        creditor_id: null,
        debited_iban: null,
        card_last4: null,
        card_holder: null,
      },
    ],
    payee: null,
    preceding_invoice: null,
    attachments: [],
    amount_due: total - prepaidAmount,
    amount_paid: 0,
    amount_remaining: total - prepaidAmount,
    remittance_reference: 'RF73INV20260042',
    notes: 'Thank you for your order.\nDelivery within 14 days.',
    footer: 'Payable within 30 days without deduction.',
    business_snapshot: {
      business_name: 'Acme Design Studio',
      email: 'billing@acme.example',
      address: { line1: 'Hauptstraße 1', line2: null, city: 'Köln', state: null, postal_code: '50667', country: 'DE' },
      tax_id: 'DE123456789',
      payment_instructions: 'IBAN DE89 3704 0044 0532 0130 00\nBIC COBADEFFXXX',
      brand_color: '#0B5FFF',
      phone: '+49 221 1234567',
      contact_name: 'Accounts receivable',
      electronic_address: 'billing@acme.example',
      electronic_address_scheme: 'EM',
      payment_account: { iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', name: 'Acme Design Studio' },
      trading_name: null,
      registration_id: null,
      registration_id_scheme: null,
      legal_info: null,
      tax_representative: null,
    },
    customer_snapshot: {
      name: 'Müller & Söhne GmbH',
      email: 'ap@mueller.example',
      address: { line1: 'Domplatz 5', line2: '3. OG', city: 'Düsseldorf', state: null, postal_code: '40213', country: 'DE' },
      tax_id: 'DE987654321',
      electronic_address: 'ap@mueller.example',
      electronic_address_scheme: 'EM',
      identifier: null,
      identifier_scheme: null,
      contact_name: null,
      buyer_reference: '04011000-12345-34',
    },
    buyer_reference: '04011000-12345-34',
    purchase_order: 'PO-7781',
    delivery_date: '2026-11-18',
    service_period: null,
    // British English: the day-month dates and grouping these tests were written with.
    locale: 'en-GB',
    public_url_token: token,
    public_url: `http://localhost:8080/i/${token}`,
    finalized_at: '2026-11-20T09:30:00.000Z',
    paid_at: null,
    payment_reference: null,
    voided_at: null,
    void_reason: null,
    snapshot_sha256: 'a'.repeat(64),
    chain_sha256: 'b'.repeat(64),
    metadata: {},
    created_at: '2026-11-19T08:00:00.000Z',
    updated_at: '2026-11-20T09:30:00.000Z',
    lines: { object: 'list', data: lines },
    tax_breakdown: breakdown,
    einvoice: null,
    ...rest,
  };
  // As billing answers: readiness computed from the finalized invoice (null on a draft).
  return { ...invoice, einvoice: rest.einvoice !== undefined || invoice.business_snapshot === null ? (rest.einvoice ?? null) : einvoiceReadiness(invoice) };
};

/** A finalized invoice of an e-invoice shape: its lines, currency and customer, addressed by email. */
export const makeInvoiceOfShape = (shape: EinvoiceShape): Invoice => {
  const base = makeInvoice({ currency: shape.currency, lineInputs: shape.lines });
  return makeInvoice({
    currency: shape.currency,
    lineInputs: shape.lines,
    customer_name: shape.customer.name,
    customer_snapshot: { ...base.customer_snapshot!, ...shape.customer, electronic_address: shape.customer.email, electronic_address_scheme: 'EM' },
  });
};

/**
 * A finalized invoice with every EN 16931 term beyond the first set that a reader of the PDF needs
 * (decisions.md): decimal quantities and prices, a price per 100, item numbers and notes, a
 * document allowance by percentage and a charge, an exemption given by its VATEX code only, a
 * prepaid amount, VAT in a tax currency, two accounts to pay into and a payee, the preceding
 * invoice, a supporting document, the seller's trading name, registration, legal information and
 * tax representative, the buyer's identifier and contact.
 *
 * Lines 90,000 + 313 (2,500 × 0.125) + 12,750 (1,500 × 850 / 100) + 20,000 = 123,063; line
 * discount 1,275; allowance 4,500 (5 % of 90,000) and charge 1,500, both at 19 %: taxable 118,788,
 * VAT 18,770 (19 % of 98,788), total 137,558, prepaid 50,000, due 87,558; VAT in HUF
 * round_half_up(187.70 × 391.25 × 100) = 7,343,763.
 */
export const makeRichInvoice = (overrides: Partial<Invoice> = {}): Invoice => {
  const base = makeInvoice({
    lineInputs: [
      { description: 'Consulting', quantity_decimal: '7.5', unit_code: 'HUR', unit_amount: 12_000, tax_rate: 19, sku: 'CONS-01', note: 'On site in Köln, 3 and 4 November' },
      { description: 'Cloud storage (GB-hours)', quantity_decimal: '2500', unit_amount_decimal: '0.125', tax_rate: 19 },
      { description: 'Standard screws M4', quantity_decimal: '1500', unit_amount_decimal: '850', price_base_quantity: '100', tax_rate: 19, sku: 'SCR-M4', discount: { percent_off: 10 } },
      { description: 'Safety training', unit_amount: 20_000, tax_category: 'E', tax_exemption_reason_code: 'VATEX-EU-132-1I' },
    ],
    allowances: [makeAdjustment({ percent: 5, base_amount: 90_000, reason: 'Framework agreement', reason_code: '95', tax_rate: 19 })],
    charges: [makeAdjustment({ amount: 1_500, reason: 'Freight', reason_code: 'FC', tax_rate: 19 })],
    prepaid_amount: 50_000,
    tax_currency: 'HUF',
    tax_exchange_rate: '391.25',
    ...overrides,
  });
  return {
    ...base,
    payment_means: [
      { type: 'credit_transfer', information: null, iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', account_name: 'Factoring Bank AG', mandate_reference: null, creditor_id: null, debited_iban: null, card_last4: null, card_holder: null },
      { type: 'credit_transfer', information: 'For payments from Austria', iban: 'AT611904300234573201', bic: null, account_name: null, mandate_reference: null, creditor_id: null, debited_iban: null, card_last4: null, card_holder: null },
    ],
    payee: { name: 'Factoring Bank AG', identifier: null, legal_registration_id: null },
    preceding_invoice: { number: 'INV/2026/0017', issue_date: '2026-10-15' },
    attachments: [
      { id: 'att_0190f3e2c1b27a8e9d1f3c4b5a697887', object: 'invoice_attachment', livemode: true, filename: 'timesheet-november.csv', content_type: 'text/csv', size: 1_234, sha256: 'c'.repeat(64), description: 'Timesheet November' },
      { id: 'att_0190f3e2c1b27a8e9d1f3c4b5a697888', object: 'invoice_attachment', livemode: true, filename: 'delivery-note.pdf', content_type: 'application/pdf', size: 20_480, sha256: 'd'.repeat(64), description: null },
    ],
    business_snapshot: {
      ...base.business_snapshot!,
      payment_instructions: null,
      trading_name: 'Acme Studio',
      registration_id: 'HRB 12345',
      registration_id_scheme: null,
      legal_info: 'Registered at Amtsgericht Köln, HRB 12345. Managing director: Jana Beispiel.',
      tax_representative: {
        name: 'Fiscal Representation SARL',
        tax_id: 'FR61123456789',
        address: { line1: '12 rue de la Paix', line2: null, city: 'Paris', state: null, postal_code: '75002', country: 'FR' },
      },
    },
    customer_snapshot: { ...base.customer_snapshot!, identifier: '4000001987658', identifier_scheme: '0088', contact_name: 'Erika Mustermann' },
    ...overrides,
  };
};
