import {
  DEFAULT_UNIT_CODE,
  PAYMENT_MEANS_CODES,
  type Address,
  type DocumentAllowanceCharge,
  type EinvoiceProfile,
  type Invoice,
  type InvoiceLine,
  type PaymentMeans,
  type TaxBreakdownEntry,
  type TaxCategory,
} from '@invoicing/contracts';

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

/** An identifier with the ISO 6523 ICD (or other) scheme it belongs to, when one was given. */
export interface SchemedId {
  value: string;
  scheme: string | null;
}

export interface PaymentAccount {
  iban: string;
  bic: string | null;
  name: string | null;
}

/** UNTDID 4461 codes the API offers: credit transfer, SEPA direct debit, bank card, online payment service (PayPal), not defined. */
export type PaymentMeansCode = (typeof PAYMENT_MEANS_CODES)[keyof typeof PAYMENT_MEANS_CODES];

/**
 * One payment instruction (BG-16). All of an invoice's entries share one code (UBL-SR-47,
 * BR-DE-23): several credit-transfer accounts, say, but never a transfer beside a direct debit.
 */
export interface EInvoicePaymentMeans {
  code: PaymentMeansCode;
  /** Payment means text (BT-82). */
  information: string | null;
  /** Credit transfer (BG-17: BT-84 IBAN, BT-85 account name, BT-86 BIC). */
  account: PaymentAccount | null;
  /** Direct debit (BG-19): mandate reference (BT-89), the seller's creditor identifier (BT-90), the debited IBAN (BT-91). */
  directDebit: { mandateReference: string | null; creditorId: string | null; debitedIban: string | null } | null;
  /** Payment card (BG-18): the last digits of the card number (BT-87) and its holder (BT-88). */
  card: { lastDigits: string; holder: string | null } | null;
}

/** A document-level allowance (BG-20) or charge (BG-21). */
export interface EInvoiceAllowanceCharge {
  /** Minor units (BT-92 / BT-99). */
  amount: number;
  /** Minor units the percentage applied to (BT-93 / BT-100), when given as one. */
  baseAmount: number | null;
  /** BT-94 / BT-101. */
  percent: number | null;
  /** BT-97 / BT-104. */
  reason: string | null;
  /** UNTDID 5189 for allowances, 7161 for charges (BT-98 / BT-105). */
  reasonCode: string | null;
  taxCategory: TaxCategory;
  taxRate: number;
}

/** A period with both days included, ISO dates: the invoicing period (BG-14: BT-73, BT-74) or a line's (BG-26: BT-134, BT-135). */
export interface EInvoicePeriod {
  start: string;
  end: string;
}

/** A supporting document (BG-24) embedded in the invoice (BT-125). */
export interface EInvoiceAttachment {
  /** BT-122. */
  id: string;
  filename: string;
  /** BR-CL-24: PDF, PNG, JPEG, CSV, XLSX or ODS. */
  contentType: string;
  /** BT-123. */
  description: string | null;
  content: Buffer;
}

export interface EInvoiceLine {
  /** 1, 2, ... in invoice order (BT-126). */
  position: number;
  description: string;
  /** Invoiced quantity (BT-129), an exact decimal: `12`, `7.5`. */
  quantity: string;
  /** UN/ECE Rec 20 (BT-130). */
  unitCode: string;
  /**
   * Net price (BT-146) in minor units, an exact decimal (`9500`, `0.125`): the discount is a line
   * allowance, not part of the price.
   */
  unitAmount: string;
  /** The quantity the price is for (BT-149), an exact decimal; `1` is left out of the documents. */
  priceBaseQuantity: string;
  /** quantity × unit amount ÷ base quantity, minor units (the allowance base, BT-137). */
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
  /** CEF VATEX code beside or instead of the reason. */
  taxExemptionReasonCode: string | null;
  /** Line note (BT-127). */
  note: string | null;
  /** Seller's item identifier (BT-155). */
  sellerItemId: string | null;
  /** Standard item identifier (BT-157) with its scheme (ISO 6523 ICD, `0160` for a GTIN); written only with a scheme (BR-64). */
  standardItemId: SchemedId | null;
  /** Invoice line period (BG-26). */
  period: EInvoicePeriod | null;
}

/** One VAT breakdown (BG-23): the lines, allowances and charges of one category and rate, as billing summed them. */
export interface EInvoiceTaxGroup {
  category: TaxCategory;
  rate: number;
  /** BT-116: line net amounts − allowances + charges of the group. */
  taxableAmount: number;
  taxAmount: number;
  /** BT-120. */
  exemptionReason: string | null;
  /** CEF VATEX (BT-121). */
  exemptionReasonCode: string | null;
}

export interface EInvoiceTotals {
  /** Σ line net amounts (BT-106). */
  lineNetTotal: number;
  /** Σ document allowances (BT-107). */
  allowanceTotal: number;
  /** Σ document charges (BT-108). */
  chargeTotal: number;
  /** BT-109: lineNetTotal − allowanceTotal + chargeTotal. */
  taxExclusive: number;
  /** BT-110. */
  taxTotal: number;
  /** BT-112: taxExclusive + taxTotal. */
  total: number;
  /** Paid before issue (BT-113). */
  prepaid: number;
  /** BT-115: total − prepaid. */
  amountDue: number;
}

/**
 * What an EN 16931 invoice says, in the API's own units (minor units, ISO dates, exact decimal
 * strings), taken only from what finalization froze. Both syntaxes and both profiles are written
 * from it, so the mapping from the invoice view lives in one place (`toEInvoice`).
 */
export interface EInvoice {
  number: string;
  /** Remittance information (BT-83): the ISO 11649 creditor reference (issue #21), else the number. */
  paymentReference: string;
  issueDate: string;
  dueDate: string | null;
  currency: string;
  /** VAT accounting currency (BT-6) and the VAT total in it, its minor units (BT-111). */
  taxCurrency: { code: string; taxTotal: number } | null;
  buyerReference: string | null;
  purchaseOrder: string | null;
  /** Preceding invoice reference (BG-3: BT-25, BT-26). */
  precedingInvoice: { number: string; issueDate: string | null } | null;
  /** Actual delivery date (BT-72); null when the invoice states when it supplied by its invoicing period instead. */
  deliveryDate: string | null;
  /** Invoicing period (BG-14): the invoice's service period. */
  invoicePeriod: EInvoicePeriod | null;
  /** Free texts (BT-22): notes and payment instructions. */
  notes: string[];
  /** Payment terms (BT-20): the footer. */
  paymentTerms: string | null;
  seller: EInvoiceParty & {
    contact: SellerContact;
    /** BT-28. */
    tradingName: string | null;
    /** Legal registration identifier (BT-30) with its scheme. */
    legalRegistrationId: SchemedId | null;
    /** Additional legal information (BT-33). */
    legalInfo: string | null;
  };
  buyer: EInvoiceParty & {
    /** Buyer identifier (BT-46) with its scheme. */
    identifier: SchemedId | null;
    /** Buyer contact point (BT-56). */
    contactName: string | null;
  };
  /** BG-10, when someone other than the seller is paid. */
  payee: { name: string; identifier: string | null; legalRegistrationId: string | null } | null;
  /** BG-11: name (BT-62), VAT identifier (BT-63), address (BG-12). */
  taxRepresentative: { name: string; vatId: string; address: Address } | null;
  /** BG-16, one code for all entries; empty when the seller named no way to pay. */
  paymentMeans: EInvoicePaymentMeans[];
  allowances: EInvoiceAllowanceCharge[];
  charges: EInvoiceAllowanceCharge[];
  lines: EInvoiceLine[];
  taxGroups: EInvoiceTaxGroup[];
  totals: EInvoiceTotals;
  attachments: EInvoiceAttachment[];
}

const text = (value: string | null | undefined): string | null => (value && value.trim() !== '' ? value.trim() : null);

/** Billing froze the address with its scheme (an email address, `EM`, when the party had no other). */
const electronicAddressOf = (value: string | null, scheme: string | null): ElectronicAddress | null => {
  const address = text(value);
  return address ? { value: address, scheme: text(scheme) ?? 'EM' } : null;
};

const schemed = (value: string | null | undefined, scheme: string | null | undefined): SchemedId | null => {
  const id = text(value);
  return id ? { value: id, scheme: text(scheme) } : null;
};

const toLine = (line: InvoiceLine, index: number): EInvoiceLine => ({
  position: index + 1,
  description: line.description,
  quantity: line.quantity_decimal,
  unitCode: text(line.unit_code) ?? DEFAULT_UNIT_CODE,
  unitAmount: line.unit_amount_decimal,
  priceBaseQuantity: line.price_base_quantity,
  // Billing's amount is round_half_up(quantity × price ÷ base quantity) − discount: the allowance base is that before the discount.
  subtotal: line.amount + line.discount_amount,
  discountAmount: line.discount_amount,
  discountPercent: line.discount && 'percent_off' in line.discount && line.discount_amount > 0 ? line.discount.percent_off : null,
  netAmount: line.amount,
  taxCategory: line.tax_category,
  taxRate: line.tax_rate,
  taxExemptionReason: text(line.tax_exemption_reason),
  taxExemptionReasonCode: text(line.tax_exemption_reason_code),
  note: text(line.note),
  sellerItemId: text(line.sku),
  standardItemId: schemed(line.standard_id, line.standard_id_scheme),
  period: line.period ? { start: line.period.start, end: line.period.end } : null,
});

const toAllowanceCharge = (entry: DocumentAllowanceCharge): EInvoiceAllowanceCharge => ({
  amount: entry.amount,
  baseAmount: entry.base_amount,
  percent: entry.percent,
  reason: text(entry.reason),
  reasonCode: text(entry.reason_code),
  taxCategory: entry.tax_category,
  taxRate: entry.tax_rate,
});

const toPaymentMeans = (means: PaymentMeans): EInvoicePaymentMeans => ({
  code: PAYMENT_MEANS_CODES[means.type],
  information: text(means.information),
  account: means.type === 'credit_transfer' && text(means.iban) ? { iban: normalizeIban(means.iban!), bic: text(means.bic), name: text(means.account_name) } : null,
  directDebit:
    means.type === 'sepa_direct_debit'
      ? { mandateReference: text(means.mandate_reference), creditorId: text(means.creditor_id), debitedIban: text(means.debited_iban) ? normalizeIban(means.debited_iban!) : null }
      : null,
  card: means.type === 'card' && text(means.card_last4) ? { lastDigits: text(means.card_last4)!, holder: text(means.card_holder) } : null,
});

/**
 * A VAT group (BG-23) as billing summed it. The breakdown carries the reason texts; its VATEX code
 * (BT-121, one per group) is the first its lines name.
 */
const toTaxGroup = (group: TaxBreakdownEntry, lines: EInvoiceLine[]): EInvoiceTaxGroup => ({
  category: group.tax_category,
  rate: group.tax_rate,
  taxableAmount: group.taxable_amount,
  taxAmount: group.tax,
  exemptionReason: text(group.tax_exemption_reason),
  exemptionReasonCode: lines.find((line) => line.taxCategory === group.tax_category && line.taxRate === group.tax_rate && line.taxExemptionReasonCode)?.taxExemptionReasonCode ?? null,
});

const sum = (amounts: number[]): number => amounts.reduce((total, amount) => total + amount, 0);

/** The amounts of EN 16931's document totals (BG-22) from the model's parts, so a writer never adds them up itself. */
export const totalsOf = (parts: {
  lines: Pick<EInvoiceLine, 'netAmount'>[];
  allowances: Pick<EInvoiceAllowanceCharge, 'amount'>[];
  charges: Pick<EInvoiceAllowanceCharge, 'amount'>[];
  taxTotal: number;
  prepaid: number;
}): EInvoiceTotals => {
  const lineNetTotal = sum(parts.lines.map((line) => line.netAmount));
  const allowanceTotal = sum(parts.allowances.map((allowance) => allowance.amount));
  const chargeTotal = sum(parts.charges.map((charge) => charge.amount));
  const taxExclusive = lineNetTotal - allowanceTotal + chargeTotal;
  const total = taxExclusive + parts.taxTotal;
  return { lineNetTotal, allowanceTotal, chargeTotal, taxExclusive, taxTotal: parts.taxTotal, total, prepaid: parts.prepaid, amountDue: total - parts.prepaid };
};

/**
 * The e-invoice of a finalized invoice, from its snapshots alone (the customer may have been
 * edited or deleted since), with the content of each supporting document it lists (by attachment
 * id). Throws on a draft, which has no snapshots, and when a listed document's content is missing.
 */
export const toEInvoice = (invoice: Invoice, attachmentContents: ReadonlyMap<string, Buffer> = new Map()): EInvoice => {
  const { number } = invoice;
  const { business_snapshot: business, customer_snapshot: customer } = invoice;
  if (number === null || business === null || customer === null) throw new Error(`Invoice ${invoice.id} is a draft and has no e-invoice`);
  const lines = invoice.lines.data.map((line, index) => toLine(line, index));
  const account = business.payment_account;
  const notes = [text(invoice.notes), text(business.payment_instructions)].filter((note): note is string => note !== null);
  // Finalization froze the invoice's payment means; invoices from before have only the account's transfer account.
  const paymentMeans: EInvoicePaymentMeans[] =
    invoice.payment_means.length > 0
      ? invoice.payment_means.map(toPaymentMeans)
      : account
        ? [{ code: PAYMENT_MEANS_CODES.credit_transfer, information: null, account: { iban: normalizeIban(account.iban), bic: text(account.bic), name: text(account.name) }, directDebit: null, card: null }]
        : [];
  const representative = business.tax_representative;
  const attachments = invoice.attachments.map((attachment): EInvoiceAttachment => {
    const content = attachmentContents.get(attachment.id);
    if (content === undefined) throw new Error(`Invoice ${invoice.id} lists supporting document ${attachment.id} without its content`);
    return { id: attachment.id, filename: attachment.filename, contentType: attachment.content_type, description: text(attachment.description), content };
  });
  return {
    number,
    paymentReference: text(invoice.remittance_reference) ?? number,
    issueDate: invoice.issue_date,
    dueDate: invoice.due_date,
    currency: invoice.currency,
    taxCurrency: invoice.tax_currency && invoice.tax_total_in_tax_currency !== null ? { code: invoice.tax_currency, taxTotal: invoice.tax_total_in_tax_currency } : null,
    buyerReference: text(invoice.buyer_reference),
    purchaseOrder: text(invoice.purchase_order),
    precedingInvoice: invoice.preceding_invoice ? { number: invoice.preceding_invoice.number, issueDate: invoice.preceding_invoice.issue_date } : null,
    // Finalization fills an empty delivery date with the issue date unless a service period says
    // when the service was supplied (§ 14 (4) 6. UStG needs one of the two, EN 16931 allows both):
    // an issue date here would state a delivery the seller never named. Invoices finalized before
    // that rule have neither and keep the issue date they were always exported with.
    deliveryDate: invoice.delivery_date ?? (invoice.service_period ? null : invoice.issue_date),
    invoicePeriod: invoice.service_period ? { start: invoice.service_period.start, end: invoice.service_period.end } : null,
    notes,
    paymentTerms: text(invoice.footer),
    seller: {
      name: text(business.business_name),
      address: business.address,
      taxId: text(business.tax_id),
      electronicAddress: electronicAddressOf(business.electronic_address, business.electronic_address_scheme),
      contact: { name: text(business.contact_name), phone: text(business.phone), email: text(business.email) },
      tradingName: text(business.trading_name),
      legalRegistrationId: schemed(business.registration_id, business.registration_id_scheme),
      legalInfo: text(business.legal_info),
    },
    buyer: {
      name: text(customer.name),
      address: customer.address,
      taxId: text(customer.tax_id),
      electronicAddress: electronicAddressOf(customer.electronic_address, customer.electronic_address_scheme),
      identifier: schemed(customer.identifier, customer.identifier_scheme),
      contactName: text(customer.contact_name),
    },
    payee: invoice.payee ? { name: invoice.payee.name, identifier: text(invoice.payee.identifier), legalRegistrationId: text(invoice.payee.legal_registration_id) } : null,
    taxRepresentative: representative ? { name: representative.name, vatId: representative.tax_id, address: representative.address } : null,
    paymentMeans,
    allowances: invoice.allowances.map(toAllowanceCharge),
    charges: invoice.charges.map(toAllowanceCharge),
    lines,
    taxGroups: invoice.tax_breakdown.map((group) => toTaxGroup(group, lines)),
    // Billing's figures, as the invoice states them; BT-106 is the lines' own sum (the subtotal less the line discounts).
    totals: {
      lineNetTotal: invoice.subtotal - invoice.discount_total,
      allowanceTotal: invoice.allowance_total,
      chargeTotal: invoice.charge_total,
      taxExclusive: invoice.taxable_amount,
      taxTotal: invoice.tax_total,
      total: invoice.total,
      prepaid: invoice.prepaid_amount,
      amountDue: invoice.total - invoice.prepaid_amount,
    },
    attachments,
  };
};

const normalizeIban = (iban: string): string => iban.replace(/\s+/g, '').toUpperCase();

/** A VAT identifier starts with its country's ISO 3166-1 code (BR-CO-09; Greece uses EL). */
export const isVatIdentifier = (taxId: string | null): taxId is string => taxId !== null && /^[A-Z]{2}[0-9A-Za-z+*.]{2,}$/.test(taxId.replace(/\s+/g, ''));

/** Categories outside VAT altogether (BR-O-*): no VAT identifiers may appear beside them. */
export const isNotSubjectToVat = (einvoice: EInvoice): boolean => einvoice.lines.some((line) => line.taxCategory === 'O');

/** The invoice's one payment means text (BT-82): the first entry's that has one. */
export const paymentMeansText = (einvoice: EInvoice): string | null => einvoice.paymentMeans.find((means) => means.information)?.information ?? null;

/** How a party of the invoice identifies itself, whichever syntax writes it (UBL or CII). */
export interface PartyIdentity {
  party: EInvoiceParty;
  /** VAT identifiers may appear (the invoice has no line outside VAT). */
  vatApplies: boolean;
  /** The seller's identifier when it has no VAT identifier: its tax ID, else its electronic address (BR-CO-26); null for the buyer. */
  sellerIdentifier: string | null;
  /** The seller's contact when it gave any part of one; the buyer's contact point (BT-56) when it has one. */
  contact: SellerContact | null;
}

export const partyIdentity = (einvoice: EInvoice, role: 'seller' | 'buyer'): PartyIdentity => {
  const party = role === 'seller' ? einvoice.seller : einvoice.buyer;
  const vatApplies = !isNotSubjectToVat(einvoice);
  const sellerIdentifier = role === 'seller' && !(vatApplies && isVatIdentifier(party.taxId)) ? (party.taxId ?? party.electronicAddress?.value ?? null) : null;
  if (role === 'buyer') {
    const { contactName } = einvoice.buyer;
    return { party, vatApplies, sellerIdentifier, contact: contactName ? { name: contactName, phone: null, email: null } : null };
  }
  const { contact } = einvoice.seller;
  const hasContact = Boolean(contact.name || contact.phone || contact.email);
  return { party, vatApplies, sellerIdentifier, contact: hasContact ? contact : null };
};
