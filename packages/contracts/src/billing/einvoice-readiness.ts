import { minorUnitExponent } from '../currencies.ts';
import type { EinvoiceProfile, EinvoiceReadiness, MissingEinvoiceField, ProfileReadiness, TaxCategory } from './einvoice-fields.ts';
import type { Invoice } from './invoices.ts';
import { categoryTaxOf } from './tax-breakdown.ts';

/**
 * Whether an invoice, as the API returns it, can become a valid e-invoice in each profile, and
 * what it lacks otherwise. Pure: billing puts the answer on the invoice (`einvoice`), and the
 * documents service calls the same function before an export, answering 400 with one `errors`
 * entry per missing field (`path`, and a `message` naming the rule) instead of writing an invalid
 * document. Only rules that depend on data the API lets a client leave out are checked here; the
 * rest (number, dates, currency, at least one line, sums) hold for every finalized invoice.
 */

export type ReadinessInput = Pick<
  Invoice,
  | 'currency'
  | 'buyer_reference'
  | 'delivery_date'
  | 'service_period'
  | 'business_snapshot'
  | 'customer_snapshot'
  | 'lines'
  | 'tax_breakdown'
  | 'subtotal'
  | 'discount_total'
  | 'taxable_amount'
  | 'tax_total'
  | 'total'
  | 'payment_means'
  | 'payee'
  | 'preceding_invoice'
  | 'due_date'
  | 'footer'
  | 'prepaid_amount'
>;

// The rule that asks for the seller's VAT identifier (BT-31) when a line has the category.
const SELLER_VAT_RULES: Partial<Record<TaxCategory, string>> = { S: 'BR-S-02', Z: 'BR-Z-02', E: 'BR-E-02', AE: 'BR-AE-02', K: 'BR-IC-02', G: 'BR-G-02' };
// The rule that asks for the buyer's VAT identifier (BT-48).
const BUYER_VAT_RULES: Partial<Record<TaxCategory, string>> = { AE: 'BR-AE-02', K: 'BR-IC-02' };

/** A VAT identifier starts with the ISO 3166-1 alpha-2 code of the country that issued it (BR-CO-09; Greece uses EL). */
const hasCountryPrefix = (vatId: string): boolean => /^[A-Z]{2}[A-Z0-9+*.\s-]{2,}$/i.test(vatId);

/**
 * The ISO 6523 ICD codes the EN 16931 validators accept as an identifier's scheme (BR-CL-10,
 * BR-CL-11, BR-CL-21): 0002 to 0248 but 0092, 0103, 0181 and 0182, as their code list has it.
 */
const UNLISTED_ICD_CODES = new Set([92, 103, 181, 182]);
export const isListedIcdScheme = (scheme: string): boolean => {
  if (!/^\d{4}$/.test(scheme)) return false;
  const code = Number(scheme);
  return code >= 2 && code <= 248 && !UNLISTED_ICD_CODES.has(code);
};

// Read on a draft (its readiness if finalized now) and on a finalized invoice alike.
const LATER = 'finalization freezes it, so set it before finalizing (an invoice finalized without it keeps lacking it)';

const missingIn = (invoice: ReadinessInput, profile: EinvoiceProfile): MissingEinvoiceField[] => {
  const missing: MissingEinvoiceField[] = [];
  const lack = (path: string, rule: string, message: string) => missing.push({ path, rule, message: `${rule}: ${message}` });
  const seller = invoice.business_snapshot;
  const buyer = invoice.customer_snapshot;
  if (!seller || !buyer) {
    lack('status', 'BR-1', 'a draft is no invoice yet and has no frozen seller and buyer: finalize it first');
    return missing;
  }
  const lines = invoice.lines.data;
  const categories = [...new Set(lines.map((line) => line.tax_category))];

  if (seller.business_name == null) lack('business_snapshot.business_name', 'BR-6', `the seller name (BT-27) is the account's business_name; ${LATER}`);
  if (seller.address.country == null) lack('business_snapshot.address.country', 'BR-9', `the seller country (BT-40) is the account's address.country; ${LATER}`);
  if (buyer.address.country == null) lack('customer_snapshot.address.country', 'BR-11', `the buyer country (BT-55) is the customer's address.country; ${LATER}`);

  const sellerVatRules = categories.flatMap((category) => SELLER_VAT_RULES[category] ?? []);
  const representative = seller.tax_representative;
  if (seller.tax_id == null && sellerVatRules.length && representative == null) {
    lack('business_snapshot.tax_id', sellerVatRules.join(', '), `the seller VAT identifier (BT-31) is the account's tax_id (or its tax_representative's, BT-63); ${LATER}`);
  } else if (seller.tax_id == null && seller.registration_id == null) {
    // Not subject to VAT alone (O), or VAT handled by a tax representative: the seller still needs some identifier; the export writes tax_id as that.
    lack('business_snapshot.tax_id', 'BR-CO-26', `the buyer identifies the seller by its VAT identifier (BT-31) or legal registration identifier (BT-30): the account's tax_id or registration_id; ${LATER}`);
  } else if (seller.tax_id != null && sellerVatRules.length && !hasCountryPrefix(seller.tax_id)) {
    lack('business_snapshot.tax_id', 'BR-CO-09', `the seller VAT identifier ${seller.tax_id} must start with its country code, such as DE123456789`);
  }
  if (representative != null) {
    if (categories.includes('O')) {
      lack('business_snapshot.tax_representative', 'BR-O-02', 'an invoice with lines not subject to VAT (O) may not name a seller tax representative VAT identifier (BT-63): remove the account\'s tax_representative for such invoices');
    } else if (!representative.tax_id) {
      lack('business_snapshot.tax_representative.tax_id', 'BR-56', `a seller tax representative (BG-11) needs its VAT identifier (BT-63); ${LATER}`);
    } else if (!hasCountryPrefix(representative.tax_id)) {
      lack('business_snapshot.tax_representative.tax_id', 'BR-CO-09', `the tax representative's VAT identifier ${representative.tax_id} must start with its country code, such as DE123456789`);
    }
    if (!representative.name) lack('business_snapshot.tax_representative.name', 'BR-18', `a seller tax representative (BG-11) needs its name (BT-62); ${LATER}`);
    if (representative.address.country == null) {
      lack('business_snapshot.tax_representative.address.country', 'BR-20', `a seller tax representative's address (BG-12) needs its country (BT-69); ${LATER}`);
    }
  }
  if (seller.registration_id_scheme != null && seller.registration_id == null) {
    lack('business_snapshot.registration_id_scheme', 'BR-CL-11', 'a registration identifier scheme is written only with the legal registration identifier (BT-30) it qualifies');
  } else if (seller.registration_id_scheme != null && !isListedIcdScheme(seller.registration_id_scheme)) {
    lack('business_snapshot.registration_id_scheme', 'BR-CL-11', `${seller.registration_id_scheme} is not in the ISO 6523 ICD list the validators know: the account's registration_id_scheme; ${LATER}`);
  }
  if (buyer.identifier_scheme != null && !isListedIcdScheme(buyer.identifier_scheme)) {
    lack('customer_snapshot.identifier_scheme', 'BR-CL-10', `${buyer.identifier_scheme} is not in the ISO 6523 ICD list the validators know: the customer's identifier_scheme; ${LATER}`);
  }
  if (invoice.payee != null && !invoice.payee.name) lack('payee.name', 'BR-17', 'a payee (BG-10) other than the seller needs its name (BT-59)');
  if (invoice.preceding_invoice != null && !invoice.preceding_invoice.number) lack('preceding_invoice.number', 'BR-55', 'a preceding invoice reference (BG-3) needs the number of that invoice (BT-25)');
  const buyerVatRules = categories.flatMap((category) => BUYER_VAT_RULES[category] ?? []);
  if (buyerVatRules.length && buyer.tax_id == null) {
    lack('customer_snapshot.tax_id', buyerVatRules.join(', '), `reverse charge and intra-community lines need the buyer VAT identifier (BT-48), the customer's tax_id; ${LATER}`);
  } else if (buyerVatRules.length && buyer.tax_id != null && !hasCountryPrefix(buyer.tax_id)) {
    lack('customer_snapshot.tax_id', 'BR-CO-09', `the buyer VAT identifier ${buyer.tax_id} must start with its country code, such as FR12345678901`);
  }
  if (categories.includes('O') && categories.length > 1) {
    lack('lines', 'BR-O-11', 'lines not subject to VAT (O) cannot share an invoice with lines of another category');
  }
  if (categories.includes('K') && invoice.delivery_date == null && invoice.service_period == null) {
    lack('delivery_date', 'BR-IC-11', 'an intra-community supply (K) needs the actual delivery date (BT-72) or the service period (BG-14)');
  }
  lines.forEach((line, index) => {
    if (line.tax_category === 'E' && line.tax_rate !== 0) lack(`lines.data.${index}.tax_rate`, 'BR-E-05', `an exempt (E) line charges no VAT: its rate must be 0, not ${line.tax_rate}`);
  });
  invoice.tax_breakdown.forEach((group, index) => {
    const expected = Number(categoryTaxOf(BigInt(group.taxable_amount), group.tax_rate));
    if (group.tax !== expected) {
      lack(
        `tax_breakdown.${index}.tax`,
        'BR-CO-17',
        `the ${group.tax_category} ${group.tax_rate}% tax ${group.tax} is not round(${group.taxable_amount} × ${group.tax_rate}%) = ${expected}: the invoice was finalized with per-line rounding, before taxes were computed per category`,
      );
    }
  });
  const exponent = minorUnitExponent(invoice.currency);
  if (exponent > 2) {
    const step = 10 ** (exponent - 2);
    const amounts = [invoice.subtotal, invoice.discount_total, invoice.taxable_amount, invoice.tax_total, invoice.total, ...lines.map((line) => line.amount), ...invoice.tax_breakdown.map((group) => group.tax)];
    if (amounts.some((amount) => amount % step !== 0)) {
      lack('currency', 'BR-DEC-23', `EN 16931 writes amounts with at most 2 decimals, and some ${invoice.currency} amounts of this invoice use all ${exponent}`);
    }
  }
  if (invoice.due_date == null && (invoice.footer ?? '').trim() === '' && invoice.total - invoice.prepaid_amount > 0) {
    lack('due_date', 'BR-CO-25', 'an amount due needs a payment due date (BT-9) or payment terms (BT-20, the footer): set the draft\'s due_date or days_until_due, or a footer');
  }
  // Last of the core rules, so the XRechnung payment means rules come right after them.
  missing.push(...paymentMeansIssues(invoice.payment_means, profile));

  if (profile === 'xrechnung') {
    if (invoice.buyer_reference == null) lack('buyer_reference', 'BR-DE-15', "XRechnung needs the buyer reference (BT-10), for public buyers the Leitweg-ID: set the invoice's or the customer's buyer_reference before finalizing");
    if (invoice.payment_means.length === 0) {
      lack('payment_means', 'BR-DE-1', `XRechnung needs payment instructions (BG-16): the invoice's payment_means, else the account's payment_means (or payment_account) at finalization; ${LATER}`);
    }
    if (seller.contact_name == null) lack('business_snapshot.contact_name', 'BR-DE-5', `XRechnung needs a seller contact (BG-6, BR-DE-2) with a name (BT-41): the account's contact_name; ${LATER}`);
    if (seller.phone == null) lack('business_snapshot.phone', 'BR-DE-6', `XRechnung needs the seller contact's telephone (BT-42): the account's phone; ${LATER}`);
    if (seller.email == null) lack('business_snapshot.email', 'BR-DE-7', `XRechnung needs the seller contact's email (BT-43): the account's email; ${LATER}`);
    if (seller.address.city == null) lack('business_snapshot.address.city', 'BR-DE-3', `XRechnung needs the seller city (BT-37); ${LATER}`);
    if (seller.address.postal_code == null) lack('business_snapshot.address.postal_code', 'BR-DE-4', `XRechnung needs the seller post code (BT-38); ${LATER}`);
    if (buyer.address.city == null) lack('customer_snapshot.address.city', 'BR-DE-8', `XRechnung needs the buyer city (BT-52); ${LATER}`);
    if (buyer.address.postal_code == null) lack('customer_snapshot.address.postal_code', 'BR-DE-9', `XRechnung needs the buyer post code (BT-53); ${LATER}`);
    if (seller.electronic_address == null) lack('business_snapshot.electronic_address', 'BT-34', `XRechnung needs the seller electronic address (with its scheme, BR-62): the account's electronic_address or email; ${LATER}`);
    if (buyer.electronic_address == null) lack('customer_snapshot.electronic_address', 'BT-49', `XRechnung needs the buyer electronic address (with its scheme, BR-63): the customer's electronic_address or email; ${LATER}`);
  }
  return missing;
};

/**
 * What the validators check of the frozen payment means (BG-16): one type (UBL-SR-47, CII-SR-467),
 * the account paid into for a credit transfer (BR-61), at most one card (UBL-SR-54) and one
 * mandate (UBL-SR-55); XRechnung also wants the card's digits (BR-DE-24-a) and, for a direct
 * debit, the creditor identifier (BR-DE-30) and the account debited (BR-DE-31).
 */
const paymentMeansIssues = (list: ReadinessInput['payment_means'], profile: EinvoiceProfile): MissingEinvoiceField[] => {
  const issues: MissingEinvoiceField[] = [];
  const lack = (path: string, rule: string, message: string) => issues.push({ path, rule, message: `${rule}: ${message}` });
  const first = list[0]?.type;
  if (list.some((means) => means.type !== first)) lack('payment_means', 'UBL-SR-47', 'an invoice states one payment means code: its payment means must share one type');
  if (list.filter((means) => means.type === 'card').length > 1) lack('payment_means', 'UBL-SR-54', 'an invoice names at most one payment card (BG-18)');
  if (list.filter((means) => means.type === 'sepa_direct_debit').length > 1) lack('payment_means', 'UBL-SR-55', 'an invoice names at most one direct debit mandate (BG-19)');
  list.forEach((means, index) => {
    if (means.type === 'credit_transfer' && !means.iban) lack(`payment_means.${index}.iban`, 'BR-61', 'a credit transfer needs the account to pay into (BT-84)');
  });
  if (profile !== 'xrechnung') return issues;
  list.forEach((means, index) => {
    const at = `payment_means.${index}`;
    if (means.type === 'card' && !means.card_last4) lack(`${at}.card_last4`, 'BR-DE-24-a', 'XRechnung needs the payment card information (BG-18) of a card payment: its last digits (BT-87)');
    if (means.type === 'sepa_direct_debit' && !means.creditor_id) lack(`${at}.creditor_id`, 'BR-DE-30', 'XRechnung needs the seller’s SEPA creditor identifier (BT-90) for a direct debit');
    if (means.type === 'sepa_direct_debit' && !means.debited_iban) lack(`${at}.debited_iban`, 'BR-DE-31', 'XRechnung needs the debited account (BT-91) for a direct debit');
  });
  return issues;
};

const readinessFor = (invoice: ReadinessInput, profile: EinvoiceProfile): ProfileReadiness => {
  const missing = missingIn(invoice, profile);
  return { ready: missing.length === 0, missing };
};

/** What each profile lacks; `ready` when nothing. One entry per missing field, `message` naming the rule. */
export const einvoiceReadiness = (invoice: ReadinessInput): EinvoiceReadiness => ({
  en16931: readinessFor(invoice, 'en16931'),
  xrechnung: readinessFor(invoice, 'xrechnung'),
});

/** The missing fields of one profile: what the e-invoice export answers 400 with, as `errors`. */
export const missingEinvoiceFields = (invoice: ReadinessInput, profile: EinvoiceProfile): MissingEinvoiceField[] => missingIn(invoice, profile);
