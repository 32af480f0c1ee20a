import type { FieldIssue } from '@invoicing/service-kit';
import { fitsTwoDecimals } from './einvoice-amounts.domain.ts';
import { isNotSubjectToVat, isVatIdentifier, type EInvoice, type EInvoiceProfile } from './einvoice.domain.ts';

const EXEMPTION_CATEGORIES = new Set(['E', 'AE', 'K', 'G', 'O']);
/** Categories whose seller must show a VAT identifier (BR-S-02, BR-Z-02, BR-E-02, BR-AE-02, BR-IC-02, BR-G-02). */
const SELLER_VAT_RULE: Record<string, string> = { S: 'BR-S-02', Z: 'BR-Z-02', E: 'BR-E-02', AE: 'BR-AE-02', K: 'BR-IC-02', G: 'BR-G-02' };
/** Categories whose buyer must show a VAT identifier (reverse charge, intra-community supply). */
const BUYER_VAT_RULE: Record<string, string> = { AE: 'BR-AE-02', K: 'BR-IC-02' };

const issue = (path: string, rule: string, message: string): FieldIssue => ({ path, message: `${rule}: ${message}` });

/**
 * Every field an invoice lacks for the profile, each with the rule that asks for it; empty when
 * the document can be written. Paths name the invoice's fields as the API shows them, so a client
 * knows what to fill in (in the account, the customer or the invoice) before finalizing the next one.
 * Written against the official rules: what passes here passes the validator.
 */
export const einvoiceProblems = (einvoice: EInvoice, profile: EInvoiceProfile): FieldIssue[] => {
  const problems: FieldIssue[] = [];
  const { seller, buyer, currency } = einvoice;
  const categories = new Set(einvoice.lines.map((line) => line.taxCategory));

  if (!seller.name) problems.push(issue('business_snapshot.business_name', 'BR-6', 'the seller name is required'));
  if (!seller.address.country) problems.push(issue('business_snapshot.address.country', 'BR-9', 'the seller country is required'));
  if (!buyer.address.country) problems.push(issue('customer_snapshot.address.country', 'BR-11', 'the buyer country is required'));
  if (!einvoice.dueDate && !einvoice.paymentTerms && einvoice.totals.amountDue > 0) {
    problems.push(issue('due_date', 'BR-CO-25', 'an amount due needs a due date or payment terms (footer)'));
  }

  if (isNotSubjectToVat(einvoice)) {
    // BR-O-11…14: "not subject to VAT" is the only category of such an invoice; its seller is then
    // identified by its electronic address (BR-CO-26), as no VAT identifier may appear.
    einvoice.lines.forEach((line, index) => {
      if (line.taxCategory !== 'O') problems.push(issue(`lines.data.${index}.tax_category`, 'BR-O-11', 'an invoice with category O (not subject to VAT) has no other category'));
    });
    if (!seller.electronicAddress) problems.push(issue('business_snapshot.electronic_address', 'BR-CO-26', 'a seller without VAT identifier is identified by its electronic address'));
  } else {
    const sellerRule = [...categories].map((category) => SELLER_VAT_RULE[category]).find(Boolean);
    if (sellerRule && !isVatIdentifier(seller.taxId)) {
      problems.push(issue('business_snapshot.tax_id', sellerRule, 'the seller VAT identifier, with its country prefix (BR-CO-09), is required'));
    }
    const buyerRule = [...categories].map((category) => BUYER_VAT_RULE[category]).find(Boolean);
    if (buyerRule && !isVatIdentifier(buyer.taxId)) {
      problems.push(issue('customer_snapshot.tax_id', buyerRule, 'the buyer VAT identifier, with its country prefix (BR-CO-09), is required'));
    }
  }
  einvoice.lines.forEach((line, index) => {
    if (EXEMPTION_CATEGORIES.has(line.taxCategory) && !line.taxExemptionReason) {
      problems.push(issue(`lines.data.${index}.tax_exemption_reason`, `BR-${line.taxCategory === 'K' ? 'IC' : line.taxCategory}-10`, `category ${line.taxCategory} needs an exemption reason`));
    }
  });

  const amounts: [string, number][] = [
    ['taxable_amount', einvoice.totals.lineNetTotal],
    ['tax_total', einvoice.totals.taxTotal],
    ['total', einvoice.totals.total],
    ...einvoice.lines.flatMap((line, index): [string, number][] => [
      [`lines.data.${index}.amount`, line.netAmount],
      [`lines.data.${index}.discount_amount`, line.discountAmount],
      [`lines.data.${index}.unit_amount`, line.discountAmount > 0 ? line.subtotal : 0],
    ]),
    ...einvoice.taxGroups.flatMap((group): [string, number][] => [
      ['tax_breakdown', group.taxableAmount],
      ['tax_breakdown', group.taxAmount],
    ]),
  ];
  for (const [path, minor] of amounts) {
    if (!fitsTwoDecimals(minor, currency)) problems.push(issue(path, 'BR-DEC-09', `EN 16931 amounts have at most two decimals; this ${currency} amount needs three`));
  }

  if (profile === 'xrechnung') {
    if (!einvoice.buyerReference) problems.push(issue('buyer_reference', 'BR-DE-15', 'XRechnung requires the buyer reference (Leitweg-ID for German public buyers)'));
    if (!seller.contact.name) problems.push(issue('business_snapshot.contact_name', 'BR-DE-5', 'XRechnung requires the seller contact name'));
    if (!seller.contact.phone) problems.push(issue('business_snapshot.phone', 'BR-DE-6', 'XRechnung requires the seller contact telephone number'));
    if (!seller.contact.email) problems.push(issue('business_snapshot.email', 'BR-DE-7', 'XRechnung requires the seller contact email address'));
    if (!seller.address.city) problems.push(issue('business_snapshot.address.city', 'BR-DE-3', 'XRechnung requires the seller city'));
    if (!seller.address.postal_code) problems.push(issue('business_snapshot.address.postal_code', 'BR-DE-4', 'XRechnung requires the seller post code'));
    if (!buyer.address.city) problems.push(issue('customer_snapshot.address.city', 'BR-DE-8', 'XRechnung requires the buyer city'));
    if (!buyer.address.postal_code) problems.push(issue('customer_snapshot.address.postal_code', 'BR-DE-9', 'XRechnung requires the buyer post code'));
    if (!seller.paymentAccount) problems.push(issue('business_snapshot.payment_account', 'BR-DE-1', 'XRechnung requires payment instructions: the account to pay to (IBAN)'));
    if (!seller.electronicAddress) problems.push(issue('business_snapshot.electronic_address', 'XRechnung 3.0 BT-34 (1..1)', 'XRechnung requires the seller electronic address'));
    if (!buyer.electronicAddress) problems.push(issue('customer_snapshot.electronic_address', 'XRechnung 3.0 BT-49 (1..1)', 'XRechnung requires the buyer electronic address'));
  }
  return problems;
};
