import { DEFAULT_UNIT_CODE, type Address, type EinvoiceProfile, type Invoice, type InvoiceLine, type TaxCategory } from '@invoicing/contracts';

/** The two XML syntaxes of EN 16931. */
export const EINVOICE_SYNTAXES = ['ubl', 'cii'] as const;
export type EInvoiceSyntax = (typeof EINVOICE_SYNTAXES)[number];

/** The core standard, or the German CIUS on top of it. */
export type EInvoiceProfile = EinvoiceProfile;

export type { TaxCategory };

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
}

/** One VAT breakdown (BG-23): the lines of one category and rate, as billing summed them. */
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
  /** Remittance information (BT-83): the ISO 11649 creditor reference (issue #21), else the number. */
  paymentReference: string;
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

const text = (value: string | null | undefined): string | null => (value && value.trim() !== '' ? value.trim() : null);

/** Billing froze the address with its scheme (an email address, `EM`, when the party had no other). */
const electronicAddressOf = (value: string | null, scheme: string | null): ElectronicAddress | null => {
  const address = text(value);
  return address ? { value: address, scheme: text(scheme) ?? 'EM' } : null;
};

const toLine = (line: InvoiceLine, index: number): EInvoiceLine => ({
  position: index + 1,
  description: line.description,
  quantity: line.quantity,
  unitCode: text(line.unit_code) ?? DEFAULT_UNIT_CODE,
  unitAmount: line.unit_amount,
  subtotal: line.quantity * line.unit_amount,
  discountAmount: line.discount_amount,
  discountPercent: line.discount && 'percent_off' in line.discount && line.discount_amount > 0 ? line.discount.percent_off : null,
  netAmount: line.amount,
  taxCategory: line.tax_category,
  taxRate: line.tax_rate,
  taxExemptionReason: text(line.tax_exemption_reason),
});

/**
 * The e-invoice of a finalized invoice, from its snapshots alone (the customer may have been
 * edited or deleted since). Throws on a draft, which has no snapshots.
 */
export const toEInvoice = (invoice: Invoice): EInvoice => {
  const { number } = invoice;
  const { business_snapshot: business, customer_snapshot: customer } = invoice;
  if (number === null || business === null || customer === null) throw new Error(`Invoice ${invoice.id} is a draft and has no e-invoice`);
  const lines = invoice.lines.data.map((line, index) => toLine(line, index));
  const account = business.payment_account;
  const notes = [text(invoice.notes), text(business.payment_instructions)].filter((note): note is string => note !== null);
  return {
    number,
    paymentReference: text(invoice.remittance_reference) ?? number,
    issueDate: invoice.issue_date,
    dueDate: invoice.due_date,
    currency: invoice.currency,
    buyerReference: text(invoice.buyer_reference),
    purchaseOrder: text(invoice.purchase_order),
    deliveryDate: invoice.delivery_date ?? invoice.issue_date,
    notes,
    paymentTerms: text(invoice.footer),
    seller: {
      name: text(business.business_name),
      address: business.address,
      taxId: text(business.tax_id),
      electronicAddress: electronicAddressOf(business.electronic_address, business.electronic_address_scheme),
      contact: { name: text(business.contact_name), phone: text(business.phone), email: text(business.email) },
      paymentAccount: account ? { iban: account.iban.replace(/\s+/g, '').toUpperCase(), bic: text(account.bic), name: text(account.name) } : null,
    },
    buyer: {
      name: text(customer.name),
      address: customer.address,
      taxId: text(customer.tax_id),
      electronicAddress: electronicAddressOf(customer.electronic_address, customer.electronic_address_scheme),
    },
    lines,
    taxGroups: invoice.tax_breakdown.map((group) => ({
      category: group.tax_category,
      rate: group.tax_rate,
      taxableAmount: group.taxable_amount,
      taxAmount: group.tax,
      exemptionReason: text(group.tax_exemption_reason),
    })),
    totals: { lineNetTotal: invoice.taxable_amount, taxTotal: invoice.tax_total, total: invoice.total, amountDue: invoice.total },
  };
};

/** A VAT identifier starts with its country's ISO 3166-1 code (BR-CO-09; Greece uses EL). */
export const isVatIdentifier = (taxId: string | null): taxId is string => taxId !== null && /^[A-Z]{2}[0-9A-Za-z+*.]{2,}$/.test(taxId.replace(/\s+/g, ''));

/** Categories outside VAT altogether (BR-O-*): no VAT identifiers may appear beside them. */
export const isNotSubjectToVat = (einvoice: EInvoice): boolean => einvoice.lines.some((line) => line.taxCategory === 'O');

/** How a party of the invoice identifies itself, whichever syntax writes it (UBL or CII). */
export interface PartyIdentity {
  party: EInvoiceParty;
  /** VAT identifiers may appear (the invoice has no line outside VAT). */
  vatApplies: boolean;
  /** The seller's identifier when it has no VAT identifier: its tax ID, else its electronic address (BR-CO-26); null for the buyer. */
  sellerIdentifier: string | null;
  /** The seller's contact when it gave any part of one; null for the buyer. */
  contact: SellerContact | null;
}

export const partyIdentity = (einvoice: EInvoice, role: 'seller' | 'buyer'): PartyIdentity => {
  const party = role === 'seller' ? einvoice.seller : einvoice.buyer;
  const vatApplies = !isNotSubjectToVat(einvoice);
  const sellerIdentifier = role === 'seller' && !(vatApplies && isVatIdentifier(party.taxId)) ? (party.taxId ?? party.electronicAddress?.value ?? null) : null;
  const { contact } = einvoice.seller;
  const hasContact = role === 'seller' && Boolean(contact.name || contact.phone || contact.email);
  return { party, vatApplies, sellerIdentifier, contact: hasContact ? contact : null };
};
