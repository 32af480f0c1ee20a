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
 * UNTDID 7161, the charge reason codes the EN 16931 validators accept (BR-CL-20), as listed in the
 * CEN artefacts' UBL validation XSLT: a code they would refuse is refused here (400).
 */
export const CHARGE_REASON_CODES: ReadonlySet<string> = new Set(
  (
    'AA AAA AAC AAD AAE AAF AAH AAI AAS AAT AAV AAY AAZ ABA ABB ABC ABD ABF ABK ABL ABN ABR ABS ABT ABU ACF ACG ACH ACI ACJ ACK ACL ACM ACS ADC ADE ADJ ADK ADL ADM ' +
    'ADN ADO ADP ADQ ADR ADT ADW ADY ADZ AEA AEB AEC AED AEF AEH AEI AEJ AEK AEL AEM AEN AEO AEP AES AET AEU AEV AEW AEX AEY AEZ AJ AU CA CAB CAD CAE CAF CAI CAJ ' +
    'CAK CAL CAM CAN CAO CAP CAQ CAR CAS CAT CAU CAV CAW CAX CAY CAZ CD CG CS CT DAB DAD DAC DAF DAG DAH DAI DAJ DAK DAL DAM DAN DAO DAP DAQ DL EG EP ER FAA FAB ' +
    'FAC FC FH FI GAA HAA HD HH IAA IAB ID IF IR IS KO L1 LA LAA LAB LF MAE MI ML NAA OA PA PAA PC PL PRV RAB RAC RAD RAF RE RF RH RV SA SAA SAD SAE SAI SG SH SM ' +
    'SU TAB TAC TT TV V1 V2 WH XAA YY ZZZ'
  ).split(' '),
);

type Field = 'allowances' | 'charges';

/**
 * Allowances or charges as sent, as the invoice stores and reads them: the amount of a percentage
 * computed (round_half_up(base_amount × percent / 100)), the VAT category defaulted from the rate.
 * A charge's reason code outside UNTDID 7161 is a 400.
 */
export const documentAllowanceChargesOf = (field: Field, sent: readonly (DocumentAllowanceInput | DocumentChargeInput)[]): DocumentAllowanceCharge[] => {
  const codeOf = (item: DocumentAllowanceInput | DocumentChargeInput) => (item.reason_code as string | undefined) ?? null;
  const issues = sent.flatMap((item, index) =>
    field === 'charges' && codeOf(item) !== null && !CHARGE_REASON_CODES.has(codeOf(item)!)
      ? [{ path: `charges.${index}.reason_code`, message: `${codeOf(item)} is not an UNTDID 7161 charge reason code (BR-CL-20), such as FC (freight) or ABL (packaging)` }]
      : [],
  );
  if (issues.length) throw invalidRequest('Some charge reason codes are not in the UNTDID 7161 code list.', issues);
  return sent.map((item) => ({
    amount: item.amount ?? percentAmountOf(item.base_amount!, item.percent!),
    percent: item.amount === undefined ? item.percent! : null,
    base_amount: item.amount === undefined ? item.base_amount! : null,
    reason: item.reason ?? null,
    reason_code: codeOf(item),
    tax_category: item.tax_category ?? defaultTaxCategory(item.tax_rate),
    tax_rate: item.tax_rate,
  }));
};

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
