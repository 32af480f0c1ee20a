import type { Address, BusinessSnapshot, CustomerSnapshot, Invoice, InvoiceLine } from '@invoicing/contracts';

/** The two XML syntaxes of EN 16931. */
export const EINVOICE_SYNTAXES = ['ubl', 'cii'] as const;
export type EInvoiceSyntax = (typeof EINVOICE_SYNTAXES)[number];

/** The core standard, or the German CIUS on top of it. */
export const EINVOICE_PROFILES = ['en16931', 'xrechnung'] as const;
export type EInvoiceProfile = (typeof EINVOICE_PROFILES)[number];

/** UNTDID 5305 VAT categories the API offers. */
export const TAX_CATEGORIES = ['S', 'Z', 'E', 'AE', 'K', 'G', 'O'] as const;
export type TaxCategory = (typeof TAX_CATEGORIES)[number];

export interface ElectronicAddress {
  value: string;
  /** EAS code (`EM` for an email address, `0204` for a Leitweg-ID, `9930` for a German VAT ID, ...). */
  scheme: string;
}

export interface EInvoiceParty {
  name: string | null;
  address: Address;
  /** The party's tax identifier as entered; written as a VAT identifier only when it has a country prefix. */
  taxId: string | null;
  electronicAddress: ElectronicAddress | null;
}

export interface SellerContact {
  name: string | null;
  phone: string | null;
  email: string | null;
}

export interface PaymentAccount {
  iban: string;
  bic: string | null;
  name: string | null;
}

export interface EInvoiceLine {
  /** 1, 2, ... in invoice order (BT-126). */
  position: number;
  description: string;
  quantity: number;
  /** UN/ECE Rec 20 (BT-130). */
  unitCode: string;
  /** Minor units, net of nothing (BT-146: the discount is a line allowance, not part of the price). */
  unitAmount: number;
  /** quantity × unit amount, minor units (the allowance base, BT-137). */
  subtotal: number;
  /** Minor units off the line (BT-136); 0 for none. */
  discountAmount: number;
  /** The percentage the discount was given as (BT-138), when it was given as one. */
  discountPercent: number | null;
  /** subtotal − discount (BT-131). */
  netAmount: number;
  taxCategory: TaxCategory;
  taxRate: number;
  taxExemptionReason: string | null;
  /** The line's tax as billing rounded it; summed per group when billing sends no breakdown. */
  tax: number;
}

/** One VAT breakdown (BG-23): the lines of one category and rate. */
export interface EInvoiceTaxGroup {
  category: TaxCategory;
  rate: number;
  taxableAmount: number;
  taxAmount: number;
  exemptionReason: string | null;
}

/**
 * What an EN 16931 invoice says, in the API's own units (minor units, ISO dates), taken only from
 * what finalization froze. Both syntaxes and both profiles are written from it, so the mapping
 * from the invoice view lives in one place (`toEInvoice`).
 */
export interface EInvoice {
  number: string;
  issueDate: string;
  dueDate: string | null;
  currency: string;
  buyerReference: string | null;
  purchaseOrder: string | null;
  deliveryDate: string;
  /** Free texts (BT-22): notes and payment instructions. */
  notes: string[];
  /** Payment terms (BT-20): the footer. */
  paymentTerms: string | null;
  seller: EInvoiceParty & { contact: SellerContact; paymentAccount: PaymentAccount | null };
  buyer: EInvoiceParty;
  lines: EInvoiceLine[];
  taxGroups: EInvoiceTaxGroup[];
  totals: { lineNetTotal: number; taxTotal: number; total: number; amountDue: number };
}

type Maybe<T> = T | null | undefined;

/**
 * The e-invoice fields billing adds to the snapshots, lines and invoice (issue #12, part A).
 * Read through this type so the mapping compiles with and without them; absent reads as null.
 */
interface SellerExtras {
  phone?: Maybe<string>;
  contact_name?: Maybe<string>;
  electronic_address?: Maybe<string>;
  electronic_address_scheme?: Maybe<string>;
  payment_account?: Maybe<{ iban?: Maybe<string>; bic?: Maybe<string>; name?: Maybe<string> }>;
}
interface BuyerExtras {
  electronic_address?: Maybe<string>;
  electronic_address_scheme?: Maybe<string>;
}
interface LineExtras {
  unit_code?: Maybe<string>;
  tax_category?: Maybe<string>;
  tax_exemption_reason?: Maybe<string>;
}
interface InvoiceExtras {
  buyer_reference?: Maybe<string>;
  purchase_order?: Maybe<string>;
  delivery_date?: Maybe<string>;
  tax_breakdown?: Maybe<{ tax_category: string; tax_rate: number; taxable_amount: number; tax: number }[]>;
}

const text = (value: Maybe<string>): string | null => (value && value.trim() !== '' ? value.trim() : null);

const electronicAddressOf = (value: Maybe<string>, scheme: Maybe<string>, email: Maybe<string>): ElectronicAddress | null => {
  const address = text(value);
  if (address) return { value: address, scheme: text(scheme) ?? 'EM' };
  const fallback = text(email);
  return fallback ? { value: fallback, scheme: 'EM' } : null;
};

const isTaxCategory = (value: string): value is TaxCategory => (TAX_CATEGORIES as readonly string[]).includes(value);

/** decisions.md: `S` when the rate is above 0, else `Z`, unless the line names its category. */
const categoryOf = (line: InvoiceLine & LineExtras): TaxCategory => {
  const named = text(line.tax_category)?.toUpperCase();
  if (named && isTaxCategory(named)) return named;
  return line.tax_rate > 0 ? 'S' : 'Z';
};

const toLine = (line: InvoiceLine & LineExtras, index: number): EInvoiceLine => ({
  position: index + 1,
  description: line.description,
  quantity: line.quantity,
  unitCode: text(line.unit_code) ?? 'C62',
  unitAmount: line.unit_amount,
  subtotal: line.quantity * line.unit_amount,
  discountAmount: line.discount_amount,
  discountPercent: line.discount && 'percent_off' in line.discount && line.discount_amount > 0 ? line.discount.percent_off : null,
  netAmount: line.amount,
  taxCategory: categoryOf(line),
  taxRate: line.tax_rate,
  taxExemptionReason: text(line.tax_exemption_reason),
  tax: line.tax,
});

/** The exemption reasons of a group's lines, each once, in line order. */
const reasonOf = (lines: readonly EInvoiceLine[], category: TaxCategory, rate: number): string | null => {
  const reasons = lines.filter((line) => line.taxCategory === category && line.taxRate === rate).map((line) => line.taxExemptionReason);
  const distinct = [...new Set(reasons.filter((reason): reason is string => reason !== null))];
  return distinct.length > 0 ? distinct.join('; ') : null;
};

/**
 * BG-23, one group per category and rate. Billing's own breakdown when the invoice carries one
 * (its sums are the invoice's); else summed from the lines, each line's tax rounded on its own as
 * billing does, which BR-CO-17 admits (it allows one currency unit either way).
 */
export const taxGroupsOf = (lines: readonly EInvoiceLine[], breakdown: InvoiceExtras['tax_breakdown']): EInvoiceTaxGroup[] => {
  if (breakdown && breakdown.length > 0) {
    return breakdown.map((group) => {
      const category = isTaxCategory(group.tax_category) ? group.tax_category : 'S';
      return { category, rate: group.tax_rate, taxableAmount: group.taxable_amount, taxAmount: group.tax, exemptionReason: reasonOf(lines, category, group.tax_rate) };
    });
  }
  const groups = new Map<string, EInvoiceTaxGroup>();
  for (const line of lines) {
    const key = `${line.taxCategory}|${line.taxRate}`;
    const group = groups.get(key) ?? { category: line.taxCategory, rate: line.taxRate, taxableAmount: 0, taxAmount: 0, exemptionReason: reasonOf(lines, line.taxCategory, line.taxRate) };
    group.taxableAmount += line.netAmount;
    group.taxAmount += line.tax;
    groups.set(key, group);
  }
  return [...groups.values()];
};

/**
 * The e-invoice of a finalized invoice, from its snapshots alone (the customer may have been
 * edited or deleted since). Throws on a draft, which has no snapshots.
 */
export const toEInvoice = (invoice: Invoice): EInvoice => {
  const { number } = invoice;
  const business = invoice.business_snapshot as (BusinessSnapshot & SellerExtras) | null;
  const customer = invoice.customer_snapshot as (CustomerSnapshot & BuyerExtras) | null;
  if (number === null || business === null || customer === null) throw new Error(`Invoice ${invoice.id} is a draft and has no e-invoice`);
  const extras = invoice as Invoice & InvoiceExtras;
  const lines = invoice.lines.data.map((line, index) => toLine(line, index));
  const account = business.payment_account;
  const iban = text(account?.iban);
  const notes = [text(invoice.notes), text(business.payment_instructions)].filter((note): note is string => note !== null);
  return {
    number,
    issueDate: invoice.issue_date,
    dueDate: invoice.due_date,
    currency: invoice.currency,
    buyerReference: text(extras.buyer_reference),
    purchaseOrder: text(extras.purchase_order),
    deliveryDate: text(extras.delivery_date) ?? invoice.issue_date,
    notes,
    paymentTerms: text(invoice.footer),
    seller: {
      name: text(business.business_name),
      address: business.address,
      taxId: text(business.tax_id),
      electronicAddress: electronicAddressOf(business.electronic_address, business.electronic_address_scheme, business.email),
      contact: { name: text(business.contact_name), phone: text(business.phone), email: text(business.email) },
      paymentAccount: iban ? { iban: iban.replace(/\s+/g, '').toUpperCase(), bic: text(account?.bic), name: text(account?.name) } : null,
    },
    buyer: {
      name: text(customer.name),
      address: customer.address,
      taxId: text(customer.tax_id),
      electronicAddress: electronicAddressOf(customer.electronic_address, customer.electronic_address_scheme, customer.email),
    },
    lines,
    taxGroups: taxGroupsOf(lines, extras.tax_breakdown),
    totals: { lineNetTotal: invoice.taxable_amount, taxTotal: invoice.tax_total, total: invoice.total, amountDue: invoice.total },
  };
};

/** A VAT identifier starts with its country's ISO 3166-1 code (BR-CO-09; Greece uses EL). */
export const isVatIdentifier = (taxId: string | null): taxId is string => taxId !== null && /^[A-Z]{2}[0-9A-Za-z+*.]{2,}$/.test(taxId.replace(/\s+/g, ''));

/** Categories outside VAT altogether (BR-O-*): no VAT identifiers may appear beside them. */
export const isNotSubjectToVat = (einvoice: EInvoice): boolean => einvoice.lines.some((line) => line.taxCategory === 'O');
