import { randomUUID } from 'node:crypto';
import type { EinvoiceShape } from './einvoice-shapes.ts';
import { categoryTaxOf, defaultTaxCategory, einvoiceReadiness, taxBreakdownOf, toPublicId, type Invoice, type InvoiceLine, type TaxCategory } from '@invoicing/contracts';

export interface LineInput {
  description: string;
  quantity?: number;
  unit_amount: number;
  tax_rate?: number;
  discount?: { amount_off: number } | { percent_off: number };
  unit_code?: string;
  tax_category?: TaxCategory;
  tax_exemption_reason?: string;
}

// decisions.md arithmetic, in integers: round half up on non-negative amounts.
const halfUp = (numerator: bigint, denominator: bigint) => Number((numerator * 2n + denominator) / (denominator * 2n));

const toLine = (input: LineInput): InvoiceLine => {
  const quantity = input.quantity ?? 1;
  const taxRate = input.tax_rate ?? 0;
  const subtotal = quantity * input.unit_amount;
  const discount = input.discount;
  const discountAmount =
    discount === undefined ? 0 : 'amount_off' in discount ? discount.amount_off : halfUp(BigInt(subtotal) * BigInt(Math.round(discount.percent_off * 100)), 10_000n);
  const amount = subtotal - discountAmount;
  return {
    id: toPublicId('invoiceItem', randomUUID()),
    object: 'invoiceitem',
    price: null,
    product: null,
    description: input.description,
    quantity,
    unit_amount: input.unit_amount,
    discount: discount ?? null,
    discount_amount: discountAmount,
    tax_rate: taxRate,
    amount,
    tax: halfUp(BigInt(amount) * BigInt(Math.round(taxRate * 10_000)), 1_000_000n),
    unit_code: input.unit_code ?? 'C62',
    tax_category: input.tax_category ?? defaultTaxCategory(taxRate),
    tax_exemption_reason: input.tax_exemption_reason ?? null,
    period: null,
    quantity_decimal: String(quantity),
    unit_amount_decimal: String(input.unit_amount),
    price_base_quantity: '1',
    tax_exemption_reason_code: null,
    sku: null,
    standard_id: null,
    standard_id_scheme: null,
    note: null,
  };
};

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

export const DEFAULT_LINES: LineInput[] = [
  { description: 'Design workshop', quantity: 2, unit_amount: 45_000, tax_rate: 19, discount: { percent_off: 10 } },
  { description: 'Printed brochures', quantity: 300, unit_amount: 125, tax_rate: 7 },
  { description: 'Travel', unit_amount: 8_990, tax_rate: 0, discount: { amount_off: 990 } },
];

/** A finalized invoice as billing's API returns it, totals computed from its lines. */
export const makeInvoice = (overrides: Partial<Invoice> & { lineInputs?: LineInput[] } = {}): Invoice => {
  const { lineInputs = DEFAULT_LINES, ...rest } = overrides;
  const lines = lineInputs.map(toLine);
  const subtotal = sum(lines.map((line) => line.quantity * line.unit_amount));
  const discountTotal = sum(lines.map((line) => line.discount_amount));
  // Tax per VAT category and rate, rounded once per group (BR-CO-17), as billing charges it.
  const breakdown = taxBreakdownOf(lines).map((group) => ({ ...group, tax: Number(categoryTaxOf(BigInt(group.taxable_amount), group.tax_rate)) }));
  const taxTotal = sum(breakdown.map((group) => group.tax));
  const total = subtotal - discountTotal + taxTotal;
  const id = rest.id ?? toPublicId('invoice', randomUUID());
  const token = rest.public_url_token ?? randomUUID().replaceAll('-', '');
  const invoice: Invoice = {
    id,
    object: 'invoice',
    subscription: null,
    number: 'INV/2026/0042',
    status: 'open',
    customer: toPublicId('customer', randomUUID()),
    customer_name: 'Müller & Söhne GmbH',
    currency: 'EUR',
    collection_method: 'send_invoice',
    issue_date: '2026-11-20',
    due_date: '2026-12-20',
    days_until_due: 30,
    subtotal,
    discount_total: discountTotal,
    allowance_total: 0,
    charge_total: 0,
    taxable_amount: subtotal - discountTotal,
    tax_total: taxTotal,
    total,
    prepaid_amount: 0,
    allowances: [],
    charges: [],
    tax_currency: null,
    tax_exchange_rate: null,
    tax_total_in_tax_currency: null,
    payment_means: [],
    payee: null,
    preceding_invoice: null,
    attachments: [],
    amount_due: total,
    amount_paid: 0,
    amount_remaining: total,
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
