import {
  defaultTaxCategory,
  type DocumentAllowanceCharge,
  type DocumentAllowanceInput,
  type DocumentChargeInput,
} from '@invoicing/contracts';
import { invalidRequest } from '@invoicing/service-kit/app-error';
import type { InvoiceRow } from './invoice.entity.ts';
import { percentAmountOf, taxTotalInTaxCurrency, type DocumentAdjustments } from './invoice-totals.domain.ts';

/**
 * The document-level terms of an invoice beside its lines (decisions.md, "EN 16931 business terms
 * beyond the first set"): allowances and charges (BG-20, BG-21), the prepaid amount (BT-113) and
 * the tax currency (BT-6). Pure rules; the arithmetic is invoice-totals.domain.ts's.
 */

/**
 * Allowances or charges as sent, as the invoice stores and reads them: the amount of a percentage
 * computed (round_half_up(base_amount × percent / 100)), the VAT category defaulted from the rate.
 * (The contract has checked a charge's reason code against UNTDID 7161 already.)
 */
export const documentAllowanceChargesOf = (sent: readonly (DocumentAllowanceInput | DocumentChargeInput)[]): DocumentAllowanceCharge[] =>
  sent.map((item) => ({
    amount: item.amount ?? percentAmountOf(item.base_amount!, item.percent!),
    percent: item.amount === undefined ? item.percent! : null,
    base_amount: item.amount === undefined ? item.base_amount! : null,
    reason: item.reason ?? null,
    reason_code: (item.reason_code as string | undefined) ?? null,
    tax_category: item.tax_category ?? defaultTaxCategory(item.tax_rate),
    tax_rate: item.tax_rate,
  }));

/** An invoice's allowances and charges as the arithmetic takes them. */
export const adjustmentsOf = (row: Pick<InvoiceRow, 'allowances' | 'charges'>): DocumentAdjustments => {
  const of = (list: readonly DocumentAllowanceCharge[] | null | undefined) => (list ?? []).map((item) => ({ amount: item.amount, taxCategory: item.tax_category, taxRate: item.tax_rate }));
  return { allowances: of(row.allowances), charges: of(row.charges) };
};

/**
 * The draft as it results from a create or PATCH, checked as a whole, so a PATCH may set its
 * fields one at a time only when the result holds: the prepaid amount at most the total; the tax
 * currency with its rate, or neither, and not the invoice's currency; its VAT total representable.
 */
export const assertDocumentTerms = (row: Pick<InvoiceRow, 'total' | 'taxTotal' | 'prepaidAmount' | 'currency' | 'taxCurrency' | 'taxExchangeRate'>): void => {
  if (row.prepaidAmount > row.total) {
    throw invalidRequest('prepaid_amount may not exceed the invoice total.', [{ path: 'prepaid_amount', message: `${row.prepaidAmount} is above the total ${row.total}` }]);
  }
  const taxCurrency = row.taxCurrency ?? null;
  const rate = row.taxExchangeRate ?? null;
  if ((taxCurrency === null) !== (rate === null)) {
    throw invalidRequest('tax_currency and tax_exchange_rate go together: both or neither.', [
      { path: 'tax_exchange_rate', message: taxCurrency === null ? 'needs tax_currency' : `is required with tax_currency ${taxCurrency}` },
    ]);
  }
  if (taxCurrency !== null && taxCurrency === row.currency) {
    throw invalidRequest('tax_currency is for a VAT accounting currency other than the invoice currency.', [{ path: 'tax_currency', message: `is the invoice currency ${row.currency}; leave it out` }]);
  }
  if (taxCurrency !== null && rate !== null) taxTotalInTaxCurrency(row.taxTotal, rate, row.currency, taxCurrency);
};

/** BT-111: the VAT total in the tax currency, or null without one. */
export const taxTotalInTaxCurrencyOf = (row: Pick<InvoiceRow, 'taxTotal' | 'currency' | 'taxCurrency' | 'taxExchangeRate'>): number | null =>
  row.taxCurrency != null && row.taxExchangeRate != null ? taxTotalInTaxCurrency(row.taxTotal, row.taxExchangeRate, row.currency, row.taxCurrency) : null;
