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
  'currency' | 'buyer_reference' | 'delivery_date' | 'service_period' | 'business_snapshot' | 'customer_snapshot' | 'lines' | 'tax_breakdown' | 'subtotal' | 'discount_total' | 'taxable_amount' | 'tax_total' | 'total'
>;

// The rule that asks for the seller's VAT identifier (BT-31) when a line has the category.
const SELLER_VAT_RULES: Partial<Record<TaxCategory, string>> = { S: 'BR-S-02', Z: 'BR-Z-02', E: 'BR-E-02', AE: 'BR-AE-02', K: 'BR-IC-02', G: 'BR-G-02' };
// The rule that asks for the buyer's VAT identifier (BT-48).
const BUYER_VAT_RULES: Partial<Record<TaxCategory, string>> = { AE: 'BR-AE-02', K: 'BR-IC-02' };

/** A VAT identifier starts with the ISO 3166-1 alpha-2 code of the country that issued it (BR-CO-09; Greece uses EL). */
const hasCountryPrefix = (vatId: string): boolean => /^[A-Z]{2}[A-Z0-9+*.\s-]{2,}$/i.test(vatId);

const LATER = 'it was not set when the invoice was finalized; set it for invoices finalized from now on';

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
  if (seller.tax_id == null) {
    // Not subject to VAT alone (O) still needs some seller identifier (BR-CO-26); the export writes tax_id as that.
    const rule = sellerVatRules.length ? sellerVatRules.join(', ') : 'BR-CO-26';
    lack('business_snapshot.tax_id', rule, `the seller VAT identifier (BT-31) is the account's tax_id; ${LATER}`);
  } else if (sellerVatRules.length && !hasCountryPrefix(seller.tax_id)) {
    lack('business_snapshot.tax_id', 'BR-CO-09', `the seller VAT identifier ${seller.tax_id} must start with its country code, such as DE123456789`);
  }
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

  if (profile === 'xrechnung') {
    if (invoice.buyer_reference == null) lack('buyer_reference', 'BR-DE-15', "XRechnung needs the buyer reference (BT-10), for public buyers the Leitweg-ID: set the invoice's or the customer's buyer_reference before finalizing");
    if (seller.payment_account == null) lack('business_snapshot.payment_account', 'BR-DE-1', `XRechnung needs payment instructions (BG-16): the account's payment_account (IBAN); ${LATER}`);
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
