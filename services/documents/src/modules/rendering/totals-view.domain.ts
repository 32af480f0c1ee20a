import { EXEMPT_TAX_CATEGORIES, taxGroupKey, type DocumentAllowanceCharge, type Invoice, type TaxBreakdownEntry } from '@invoicing/contracts';
import { nonBlank, type Writer } from './view-writer.domain.ts';

// The totals block and the VAT summary: from the lines' total to what is payable, the VAT in the
// tax currency, each VAT group and why a group charges no normal VAT.

export interface TotalRow {
  label: string;
  amount: string;
}

export interface VatGroupView {
  category: string;
  rate: string;
  netAmount: string;
  vat: string;
}

/** "Allowance: Loyalty (5% of €1,000.00)": the reason (or its code) and, for a percentage, what it is a percentage of. */
const adjustmentRowOf = (adjustment: DocumentAllowanceCharge, kind: 'allowance' | 'charge', { t, formats, money }: Writer): TotalRow => {
  const reason = nonBlank(adjustment.reason) ?? t('reason_code', { code: adjustment.reason_code ?? '' });
  const label =
    adjustment.percent !== null && adjustment.base_amount !== null
      ? t('adjustment_of_base', { kind: t(kind), reason, percent: formats.percent(adjustment.percent), base: money(adjustment.base_amount) })
      : t('adjustment', { kind: t(kind), reason });
  return { label, amount: money(kind === 'allowance' ? -adjustment.amount : adjustment.amount) };
};

/** From the lines' total to the taxable amount and VAT (EN 16931 BG-22): line discounts, then each document allowance and charge. */
export const totalsOf = (invoice: Invoice, writer: Writer): TotalRow[] => {
  const { t, money } = writer;
  const totals: TotalRow[] = [{ label: t('subtotal'), amount: money(invoice.subtotal) }];
  if (invoice.discount_total > 0) totals.push({ label: t('line_discounts'), amount: money(-invoice.discount_total) });
  for (const allowance of invoice.allowances) totals.push(adjustmentRowOf(allowance, 'allowance', writer));
  for (const charge of invoice.charges) totals.push(adjustmentRowOf(charge, 'charge', writer));
  totals.push({ label: t('net_amount'), amount: money(invoice.taxable_amount) }, { label: t('vat_total'), amount: money(invoice.tax_total) });
  return totals;
};

/** What finalization made due: the total less what was paid before the invoice was issued (BT-113, BT-115). */
export const amountDueAtIssue = (invoice: Invoice): number => invoice.total - invoice.prepaid_amount;

export const settlementOf = (invoice: Invoice, { t, money }: Writer): TotalRow[] =>
  invoice.prepaid_amount > 0
    ? [
        { label: t('prepaid_amount'), amount: money(-invoice.prepaid_amount) },
        { label: t('amount_payable', { currency: invoice.currency }), amount: money(amountDueAtIssue(invoice)) },
      ]
    : [];

/** "VAT in HUF: HUF 71,393.00, rate 1 EUR = 391.25 HUF" (Art. 230: the VAT in the currency of the Member State). */
export const taxCurrencyOf = (invoice: Invoice, { t, formats }: Writer): string | null => {
  const { tax_currency: currency, tax_exchange_rate: rate, tax_total_in_tax_currency: amount } = invoice;
  if (!currency || !rate || amount === null) return null;
  return t('vat_in_tax_currency', { currency, amount: formats.money(amount, currency), from: invoice.currency, rate: formats.decimal(rate) });
};

const categoryName = (group: Pick<TaxBreakdownEntry, 'tax_category'>, { t }: Writer): string => t(`category_${group.tax_category}`);

/** Net amount, rate and VAT of each VAT group (Art. 226 (8), (10)), as billing computed them, allowances and charges included. */
export const vatGroupsOf = (invoice: Invoice, writer: Writer): VatGroupView[] =>
  invoice.tax_breakdown.map((group) => ({
    category: categoryName(group, writer),
    rate: writer.formats.percent(group.tax_rate),
    netAmount: writer.money(group.taxable_amount),
    vat: writer.money(group.tax),
  }));

/** Article-based CEF VATEX codes: `VATEX-EU-132-1I` → "132 (1) (i)", `VATEX-EU-79-C` → "79 (c)". */
const VATEX_ARTICLE = /^VATEX-EU-(\d+)(?:-(\d+)?([A-Z]{1,2})?)?$/;

/**
 * A sentence for a CEF VATEX code the category's name does not already say: the article of
 * Directive 2006/112/EC it exempts under, or the French franchise. Null for the others (the
 * category names them: AE, IC, G, O) and for codes without a sentence here, which print as the
 * code alone.
 */
const vatexSentence = (code: string, { t }: Writer): string | null => {
  if (code === 'VATEX-FR-FRANCHISE') return t('vatex_fr_franchise');
  const article = VATEX_ARTICLE.exec(code);
  if (!article) return null;
  const [, number, paragraph, point] = article;
  return t('vatex_article', { article: `${number}${paragraph ? ` (${paragraph})` : ''}${point ? ` (${point.toLowerCase()})` : ''}` });
};

/** The distinct VATEX codes of a VAT group's lines. */
const groupCodes = (invoice: Invoice, group: TaxBreakdownEntry): string[] => {
  const key = taxGroupKey(group);
  const codes = invoice.lines.data.filter((line) => taxGroupKey(line) === key).map((line) => nonBlank(line.tax_exemption_reason_code));
  return [...new Set(codes.filter((code): code is string => code !== null))];
};

/** Two texts that say the same, whatever their case, spacing or closing punctuation ("Reverse charge." and "reverse charge"). */
const sameText = (a: string, b: string, locale: string): boolean => {
  const plain = (text: string) => text.toLocaleLowerCase(locale).replace(/[\s\u00a0\u202f]+/g, ' ').replace(/[\s.:;!]+$/, '').trim();
  return plain(a) === plain(b);
};

/**
 * Each group that charges no normal VAT says why (Art. 226 (11), (11a)): the reason given, else
 * the sentence of its VATEX code, with the code; reverse charge and intra-community supply also in
 * their legal words. A reason that only repeats the category's name or its legal words ("Reverse
 * charge" on a reverse-charge group) is not printed a second time: the category alone stands for
 * it, and for reverse charge and intra-community supply the legal words do.
 */
export const exemptionsOf = (invoice: Invoice, writer: Writer): string[] =>
  invoice.tax_breakdown
    .filter((group) => EXEMPT_TAX_CATEGORIES.includes(group.tax_category))
    .flatMap((group) => {
      const category = categoryName(group, writer);
      const wording = group.tax_category === 'AE' ? writer.t('wording_AE') : group.tax_category === 'K' ? writer.t('wording_K') : null;
      const codes = groupCodes(invoice, group);
      const given = nonBlank(group.tax_exemption_reason);
      const repeated = given !== null && (sameText(given, category, writer.formats.locale) || (wording !== null && sameText(given, wording, writer.formats.locale)));
      const reason = repeated ? null : given;
      const sentences = codes.map((code) => vatexSentence(code, writer)).filter((sentence): sentence is string => sentence !== null);
      const stated = reason ?? (sentences.length ? sentences.join('; ') : null);
      const code = codes.join(', ');
      const line = stated
        ? code
          ? writer.t('exemption_coded', { category, reason: stated, code })
          : writer.t('exemption', { category, reason: stated })
        : code
          ? writer.t('exemption_code_only', { category, code })
          : repeated && wording === null
            ? category
            : null;
      return [...(line ? [line] : []), ...(wording ? [wording] : [])];
    });
