import { z } from 'zod';
import { Address, AddressInput, CalendarDate, CountryCode, MinorAmount, NOT_BLANK, OPTIONAL_TEXT_RULE, optionalText } from '../common.ts';
import { CurrencyCode } from '../currencies.ts';
import { documentAsOneOf, documentCaseInsensitiveEnum, inputJsonSchemaOf } from '../schema-documentation.ts';
import { Bic, Iban, IBAN_PATTERN, TaxCategory } from './einvoice-fields.ts';

/**
 * The EN 16931 business terms beyond the first set (decisions.md, "EN 16931 business terms beyond
 * the first set"): document-level allowances and charges, payment means, the payee, the tax
 * representative, the preceding invoice, decimal quantities and prices, the tax currency,
 * identifiers of parties and items. Shapes only; billing computes, documents writes them.
 */

// --- Exact decimals, as strings (never floats) ---

const decimalPattern = (decimals: number) => `^(?:0|[1-9][0-9]{0,14})(?:\\.[0-9]{1,${decimals}})?$`;
const decimalString = (decimals: number, rule: string) =>
  z
    .string()
    .regex(new RegExp(decimalPattern(decimals)), rule)
    .meta({ pattern: decimalPattern(decimals) });
const positive = (value: string) => /[1-9]/.test(value);

export const QUANTITY_DECIMALS = 4;
export const UNIT_AMOUNT_DECIMALS = 6;
export const EXCHANGE_RATE_DECIMALS = 10;

/** A quantity above 0 with up to 4 decimals, as a string: `"7.5"`. */
/** A positive decimal's pattern, for the document: no value of zero (the parser says "must be above 0" of one). */
const positiveDecimalPattern = (decimals: number) => `^(?:[1-9][0-9]{0,14}(?:\\.[0-9]{1,${decimals}})?|0\\.[0-9]{0,${decimals - 1}}[1-9])$`;
export const QuantityDecimal = decimalString(QUANTITY_DECIMALS, `must be a decimal number above 0 with at most ${QUANTITY_DECIMALS} decimals, as a string such as "7.5"`)
  .refine(positive, 'must be above 0')
  .meta({ example: '7.5', pattern: positiveDecimalPattern(QUANTITY_DECIMALS) });
/** A unit amount in minor units with up to 6 decimals, as a string: `"0.125"` is an eighth of a cent. */
export const UnitAmountDecimal = decimalString(UNIT_AMOUNT_DECIMALS, `must be a decimal number of minor units, at least 0, with at most ${UNIT_AMOUNT_DECIMALS} decimals, as a string such as "0.125"`).meta({
  example: '0.125',
});
/** Units of the tax currency per one unit of the invoice currency, above 0. */
export const ExchangeRate = decimalString(EXCHANGE_RATE_DECIMALS, `must be a decimal number above 0 with at most ${EXCHANGE_RATE_DECIMALS} decimals, as a string such as "391.25"`)
  .refine(positive, 'must be above 0')
  .meta({ example: '391.25', pattern: positiveDecimalPattern(EXCHANGE_RATE_DECIMALS) });

// --- Codes ---

/** ISO 6523 ICD: the scheme of a party or item identifier (`0088` GLN/GTIN, `0160` GTIN, `0204` Leitweg-ID). */
const SCHEME_RULE = 'must be an ISO 6523 ICD code of four digits, such as 0088 (GLN) or 0160 (GTIN)';
export const IdentifierScheme = z.string().regex(/^\d{4}$/, SCHEME_RULE);
export const optionalIdentifierScheme = () => optionalText(4, { format: IdentifierScheme, tooLong: SCHEME_RULE });

/** CEF VATEX exemption reason code (BT-121), such as `VATEX-EU-AE`; any case, returned uppercase. */
const VATEX_RULE = 'must be a CEF VATEX code such as VATEX-EU-AE or VATEX-EU-IC';
export const VatexCode = z
  .string()
  .regex(/^[Vv][Aa][Tt][Ee][Xx]-[A-Za-z0-9-]{2,25}$/, VATEX_RULE)
  .transform((code) => code.toUpperCase())
  .meta({ example: 'VATEX-EU-AE' });
export const optionalVatexCode = () => optionalText(31, { format: VatexCode, tooLong: VATEX_RULE });

/** UNTDID 5189: why an allowance is given (BT-98). */
export const ALLOWANCE_REASON_CODES = ['41', '42', '60', '62', '63', '64', '65', '66', '67', '68', '70', '71', '88', '95', '100', '102', '103', '104', '105'] as const;
/**
 * UNTDID 7161, the charge reason codes (BT-105) the EN 16931 validators accept (BR-CL-20), as the
 * CEN artefacts' UBL validation XSLT lists them: a code they would refuse is a 400.
 */
export const CHARGE_REASON_CODES: readonly string[] = (
  'AA AAA AAC AAD AAE AAF AAH AAI AAS AAT AAV AAY AAZ ABA ABB ABC ABD ABF ABK ABL ABN ABR ABS ABT ABU ACF ACG ACH ACI ACJ ACK ACL ACM ACS ADC ADE ADJ ADK ADL ADM ' +
  'ADN ADO ADP ADQ ADR ADT ADW ADY ADZ AEA AEB AEC AED AEF AEH AEI AEJ AEK AEL AEM AEN AEO AEP AES AET AEU AEV AEW AEX AEY AEZ AJ AU CA CAB CAD CAE CAF CAI CAJ ' +
  'CAK CAL CAM CAN CAO CAP CAQ CAR CAS CAT CAU CAV CAW CAX CAY CAZ CD CG CS CT DAB DAD DAC DAF DAG DAH DAI DAJ DAK DAL DAM DAN DAO DAP DAQ DL EG EP ER FAA FAB ' +
  'FAC FC FH FI GAA HAA HD HH IAA IAB ID IF IR IS KO L1 LA LAA LAB LF MAE MI ML NAA OA PA PAA PC PL PRV RAB RAC RAD RAF RE RF RH RV SA SAA SAD SAE SAI SG SH SM ' +
  'SU TAB TAC TT TV V1 V2 WH XAA YY ZZZ'
).split(' ');
const CHARGE_REASON_CODE_SET: ReadonlySet<string> = new Set(CHARGE_REASON_CODES);
const CHARGE_REASON_CODE_RULE = 'must be an UNTDID 7161 charge reason code the EN 16931 validators accept (BR-CL-20), such as FC (freight) or ABL (packaging)';
export const ChargeReasonCode = z
  .string()
  .regex(/^[A-Za-z0-9]{2,3}$/, CHARGE_REASON_CODE_RULE)
  .transform((code) => code.toUpperCase())
  .refine((code) => CHARGE_REASON_CODE_SET.has(code), CHARGE_REASON_CODE_RULE)
  .meta({ id: 'ChargeReasonCode', override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => documentCaseInsensitiveEnum(jsonSchema, CHARGE_REASON_CODES) });

export const ALLOWANCES_MAX = 50;
export const ALLOWANCE_REASON_MAX = 200;
export const PERCENT_DECIMALS = 2;

// --- Document-level allowances and charges (BG-20, BG-21) ---

/** An allowance or charge as the invoice reads it: `amount` always, `percent` and `base_amount` when it was given as a percentage. */
export const DocumentAllowanceCharge = z
  .object({
    amount: z.int().describe('Minor units; for a percentage: round_half_up(base_amount × percent / 100).'),
    percent: z.number().nullable().describe('The percentage it was given as (BT-94 / BT-101); null when given as an amount.'),
    base_amount: z.int().nullable().describe('The base the percentage applies to (BT-93 / BT-100); null when given as an amount.'),
    reason: z.string().nullable().describe('BT-97 / BT-104.'),
    reason_code: z.string().nullable().describe('UNTDID 5189 for allowances (BT-98), 7161 for charges (BT-105).'),
    tax_category: TaxCategory.describe('VAT category of the allowance or charge (BT-95 / BT-102).'),
    tax_rate: z.number().describe('VAT rate (BT-96 / BT-103); it counts in the VAT group of this category and rate.'),
  })
  .meta({ id: 'DocumentAllowanceCharge' });
export type DocumentAllowanceCharge = z.infer<typeof DocumentAllowanceCharge>;

const percentInput = z
  .number()
  .min(0)
  .max(100)
  .multipleOf(10 ** -PERCENT_DECIMALS)
  .describe(`0 to 100 with at most ${PERCENT_DECIMALS} decimals: 2.5 means 2.5 percent.`);

const allowanceChargeInputShape = (reasonCode: z.ZodType, reasonCodeRule: string) => ({
  amount: MinorAmount.optional().describe('Minor units. Either `amount`, or `percent` with `base_amount`.'),
  percent: percentInput.optional(),
  base_amount: MinorAmount.optional().describe('Minor units the percentage applies to; required with `percent`.'),
  reason: optionalText(ALLOWANCE_REASON_MAX).optional().describe(`Why (BT-97 / BT-104). \`reason\`, \`reason_code\` or both. ${OPTIONAL_TEXT_RULE}`),
  reason_code: reasonCode.optional().describe(reasonCodeRule),
  tax_category: TaxCategory.optional().describe('Default `S` when `tax_rate` is above 0, else `Z`. It must match the category and rate of at least one line of the invoice.'),
  tax_rate: z
    .number()
    .min(0)
    .max(100)
    .multipleOf(0.001)
    .describe('Percentage, as on lines; with `tax_category` it names the VAT group (of at least one line) whose base it changes.'),
});

const allowanceChargeRules = <T extends { amount?: number; percent?: number; base_amount?: number; reason?: string | null; reason_code?: unknown }>(value: T, ctx: z.RefinementCtx) => {
  const byPercent = value.percent !== undefined || value.base_amount !== undefined;
  if (value.amount !== undefined && byPercent) ctx.addIssue({ code: 'custom', path: ['amount'], message: 'give either amount, or percent with base_amount, not both' });
  if (value.amount === undefined && !byPercent) ctx.addIssue({ code: 'custom', path: ['amount'], message: 'is required unless percent and base_amount are given' });
  if (byPercent && value.percent === undefined) ctx.addIssue({ code: 'custom', path: ['percent'], message: 'is required with base_amount' });
  if (byPercent && value.base_amount === undefined) ctx.addIssue({ code: 'custom', path: ['base_amount'], message: 'is required with percent' });
  if ((value.reason ?? null) === null && (value.reason_code ?? null) === null) ctx.addIssue({ code: 'custom', path: ['reason'], message: 'give reason, reason_code or both' });
};

const ALLOWANCE_REASON_CODE_RULE = `UNTDID 5189 code (BT-98): ${ALLOWANCE_REASON_CODES.join(', ')}.`;
const CHARGE_REASON_CODE_DOC = 'UNTDID 7161 code (BT-105), any case, returned uppercase: such as `FC` (freight), `ABL` (packaging), `ZZZ` (mutually defined).';

/** `reason`, `reason_code` or both: without a code, a reason that is not blank. */
const REASON_CONDITION = { if: { required: ['reason_code'], properties: { reason_code: { type: 'string' } } }, else: { required: ['reason'], properties: { reason: { type: 'string', pattern: '\\S' } } } };

/** The two forms of an allowance or charge, for the document: the fields as parsed, `amount` or `percent` with `base_amount`. */
const formsOf = (reasonCode: z.ZodType, reasonCodeRule: string) => {
  const { amount, percent, base_amount, ...rest } = allowanceChargeInputShape(reasonCode, reasonCodeRule);
  return {
    byAmount: z.strictObject({ amount: amount.unwrap(), ...rest }).meta({ allOf: [REASON_CONDITION] }),
    byPercent: z.strictObject({ percent: percent.unwrap(), base_amount: base_amount.unwrap(), ...rest }).meta({ allOf: [REASON_CONDITION] }),
  };
};
/** UNTDID 5189, the allowance reasons EN 16931 takes (BT-98): one component for both forms of an allowance. */
const AllowanceReasonCode = z.enum(ALLOWANCE_REASON_CODES).meta({ id: 'AllowanceReasonCode' });
const allowanceForms = formsOf(AllowanceReasonCode, ALLOWANCE_REASON_CODE_RULE);
const chargeForms = formsOf(ChargeReasonCode, CHARGE_REASON_CODE_DOC);
const AllowanceByAmount = allowanceForms.byAmount;
const AllowanceByPercent = allowanceForms.byPercent;


export const DocumentAllowanceInput = z
  .strictObject(allowanceChargeInputShape(AllowanceReasonCode, ALLOWANCE_REASON_CODE_RULE))
  .superRefine(allowanceChargeRules)
  .describe('A document-level allowance (BG-20): `{ amount }` or `{ percent, base_amount }`, with `reason`, `reason_code` or both, and the VAT group (`tax_category`, `tax_rate`) it reduces.')
  .meta({ id: 'DocumentAllowanceInput', override: documentAsOneOf({ AllowanceByAmount, AllowanceByPercent }) });
export type DocumentAllowanceInput = z.infer<typeof DocumentAllowanceInput>;

export const DocumentChargeInput = z
  .strictObject(allowanceChargeInputShape(ChargeReasonCode, CHARGE_REASON_CODE_DOC))
  .superRefine(allowanceChargeRules)
  .describe('A document-level charge (BG-21) such as freight: `{ amount }` or `{ percent, base_amount }`, with `reason`, `reason_code` or both, and the VAT group (`tax_category`, `tax_rate`) it adds to.')
  .meta({ id: 'DocumentChargeInput', override: documentAsOneOf({ ChargeByAmount: chargeForms.byAmount, ChargeByPercent: chargeForms.byPercent }) });
export type DocumentChargeInput = z.infer<typeof DocumentChargeInput>;

// --- Payment means (BG-16 … BG-19) ---

/** UNTDID 4461 codes of the payment means types (BT-81). */
export const PAYMENT_MEANS_CODES = { credit_transfer: '58', sepa_direct_debit: '59', card: '48', paypal: '68', other: '1' } as const;
export const PAYMENT_MEANS_TYPES = Object.keys(PAYMENT_MEANS_CODES) as (keyof typeof PAYMENT_MEANS_CODES)[];
export const PaymentMeansType = z
  .enum(PAYMENT_MEANS_TYPES as ['credit_transfer', 'sepa_direct_debit', 'card', 'paypal', 'other'])
  .describe('`credit_transfer` (UNTDID 4461 code 58), `sepa_direct_debit` (59), `card` (48), `paypal` (68), `other` (1).')
  .meta({ id: 'PaymentMeansType' });
export type PaymentMeansType = z.infer<typeof PaymentMeansType>;
export const PAYMENT_MEANS_MAX = 10;

export const PaymentMeans = z
  .object({
    type: PaymentMeansType,
    information: z.string().nullable().describe('Payment means text (BT-82).'),
    iban: z.string().nullable().describe('Credit transfer: the account to pay into (BT-84), without spaces.'),
    bic: z.string().nullable().describe('Credit transfer: BT-86.'),
    account_name: z.string().nullable().describe('Credit transfer: the account holder (BT-85).'),
    mandate_reference: z.string().nullable().describe('Direct debit: the mandate reference (BT-89).'),
    creditor_id: z.string().nullable().describe('Direct debit: the seller’s SEPA creditor identifier (BT-90).'),
    debited_iban: z.string().nullable().describe('Direct debit: the buyer’s account debited (BT-91).'),
    card_last4: z.string().nullable().describe('Card: the last digits of the card number (BT-87).'),
    card_holder: z.string().nullable().describe('Card: the holder’s name (BT-88).'),
  })
  .meta({ id: 'PaymentMeans' });
export type PaymentMeans = z.infer<typeof PaymentMeans>;

const TYPE_FIELDS: Record<PaymentMeansType, readonly string[]> = {
  credit_transfer: ['iban', 'bic', 'account_name'],
  sepa_direct_debit: ['mandate_reference', 'creditor_id', 'debited_iban'],
  card: ['card_last4', 'card_holder'],
  paypal: [],
  other: [],
};

const ibanInput = (description: string) => z.string().max(42).pipe(Iban).describe(description).meta({ pattern: IBAN_PATTERN, example: 'DE89 3704 0044 0532 0130 00' });
const paymentMeansFields = {
  information: optionalText(200).optional().describe(`Payment means text (BT-82), such as "SEPA credit transfer". ${OPTIONAL_TEXT_RULE}`),
  iban: ibanInput('`credit_transfer`: required; spaces allowed, stored without them; checked with its mod-97 digits.').optional(),
  bic: optionalText(11, { format: Bic }).optional().describe(`\`credit_transfer\` only. ${OPTIONAL_TEXT_RULE}`),
  account_name: optionalText(200).optional().describe(`\`credit_transfer\` only: the account holder. ${OPTIONAL_TEXT_RULE}`),
  mandate_reference: optionalText(35).optional().describe(`\`sepa_direct_debit\` only (BT-89). ${OPTIONAL_TEXT_RULE}`),
  creditor_id: optionalText(35).optional().describe(`\`sepa_direct_debit\` only: the SEPA creditor identifier (BT-90; XRechnung requires it). ${OPTIONAL_TEXT_RULE}`),
  debited_iban: ibanInput('`sepa_direct_debit` only: the account debited (BT-91).').optional(),
  card_last4: optionalText(10, { format: z.string().regex(/^\d{4,6}$/, 'must be the last 4 to 6 digits of the card number') })
    .optional()
    .describe(`\`card\` only: the last 4 to 6 digits of the card number (BT-87; never the whole number). ${OPTIONAL_TEXT_RULE}`),
  card_holder: optionalText(200).optional().describe(`\`card\` only (BT-88). ${OPTIONAL_TEXT_RULE}`),
};
const { information, iban, bic, account_name, mandate_reference, creditor_id, debited_iban, card_last4, card_holder } = paymentMeansFields;

/** Each type with its own fields, for the document (the parser below checks the same with messages that name the field). */
const CreditTransferInput = z.strictObject({ type: z.literal('credit_transfer'), information, iban: iban.unwrap(), bic, account_name });
const SepaDirectDebitInput = z.strictObject({ type: z.literal('sepa_direct_debit'), information, mandate_reference, creditor_id, debited_iban });
const CardInput = z.strictObject({ type: z.literal('card'), information, card_last4, card_holder });
const PaypalInput = z.strictObject({ type: z.literal('paypal'), information });
const OtherPaymentMeansInput = z.strictObject({ type: z.literal('other'), information });
const PAYMENT_MEANS_SHAPES = { CreditTransferInput, SepaDirectDebitInput, CardInput, PaypalInput, OtherPaymentMeansInput };

export const PaymentMeansInput = z
  .strictObject({ type: PaymentMeansType, ...paymentMeansFields })
  .superRefine((means, ctx) => {
    const allowed = TYPE_FIELDS[means.type];
    for (const field of Object.values(TYPE_FIELDS).flat()) {
      if (!allowed.includes(field) && (means as Record<string, unknown>)[field] != null) ctx.addIssue({ code: 'custom', path: [field], message: `is not a field of payment means type ${means.type}` });
    }
    if (means.type === 'credit_transfer' && means.iban === undefined) ctx.addIssue({ code: 'custom', path: ['iban'], message: 'is required for a credit_transfer' });
  })
  .describe('One way to pay (BG-16): `type` and the fields of that type; fields of other types are refused.')
  .meta({ id: 'PaymentMeansInput', override: documentAsOneOf(PAYMENT_MEANS_SHAPES) });
export type PaymentMeansInput = z.infer<typeof PaymentMeansInput>;

/**
 * The codes of one invoice's payment means: EN 16931 validators allow one per invoice (UBL-SR-47,
 * BR-DE-23). The document states it as a list of one type's shape, for each type.
 */
export const invoicePaymentMeansInput = z
  .array(PaymentMeansInput)
  .max(PAYMENT_MEANS_MAX)
  .superRefine((list, ctx) => {
    const first = list[0]?.type;
    list.forEach((means, index) => {
      if (means.type !== first) ctx.addIssue({ code: 'custom', path: [index, 'type'], message: `must be ${first} like the first entry: an invoice's payment means share one type (UBL-SR-47, BR-DE-23)` });
    });
  })
  .meta({
    override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
      const { description } = jsonSchema as { description?: string };
      for (const key of Object.keys(jsonSchema)) delete jsonSchema[key];
      Object.assign(jsonSchema, {
        ...(description ? { description } : {}),
        anyOf: Object.entries(PAYMENT_MEANS_SHAPES).map(([title, shape]) => ({ title: `${title}List`, type: 'array', maxItems: PAYMENT_MEANS_MAX, items: inputJsonSchemaOf(shape) })),
      });
    },
  });

// --- Parties (BG-10, BG-11) and the preceding invoice (BG-3) ---

export const Payee = z
  .object({
    name: z.string().describe('BT-59.'),
    identifier: z.string().nullable().describe('BT-60.'),
    legal_registration_id: z.string().nullable().describe('BT-61.'),
  })
  .describe('The party paid when it is not the seller (BG-10), such as a factoring company.')
  .meta({ id: 'Payee' });
export type Payee = z.infer<typeof Payee>;

export const PayeeInput = z
  .strictObject({
    name: z.string().trim().min(1).max(200).meta({ pattern: NOT_BLANK }).describe('Required (BT-59).'),
    identifier: optionalText(100).optional().describe(`BT-60. ${OPTIONAL_TEXT_RULE}`),
    legal_registration_id: optionalText(100).optional().describe(`BT-61. ${OPTIONAL_TEXT_RULE}`),
  })
  .describe('Replaces the whole payee; null removes it.')
  .meta({ id: 'PayeeInput' });

export const TaxRepresentative = z
  .object({ name: z.string().describe('BT-62.'), tax_id: z.string().describe('VAT identifier, with its country prefix (BT-63).'), address: Address.describe('BG-12.') })
  .describe('The seller’s tax representative (BG-11).')
  .meta({ id: 'TaxRepresentative' });
export type TaxRepresentative = z.infer<typeof TaxRepresentative>;

export const TaxRepresentativeInput = z
  .strictObject({
    name: z.string().trim().min(1).max(200).meta({ pattern: NOT_BLANK }).describe('Required (BT-62).'),
    tax_id: z.string().trim().min(3).max(50).meta({ pattern: NOT_BLANK }).describe('Required: the representative’s VAT identifier with its country prefix (BT-63).'),
    address: AddressInput.extend({ country: CountryCode.describe('Required (BT-69): ISO 3166-1 alpha-2, any case; returned uppercase.') }).describe('Its postal address (BG-12); `country` is required.'),
  })
  .describe('Replaces the whole tax representative; null removes it.')
  .meta({ id: 'TaxRepresentativeInput' });

export const PrecedingInvoice = z
  .object({ number: z.string().describe('BT-25.'), issue_date: CalendarDate.nullable().describe('BT-26.') })
  .describe('An invoice this one refers to (BG-3), such as the one it corrects.')
  .meta({ id: 'PrecedingInvoice' });
export type PrecedingInvoice = z.infer<typeof PrecedingInvoice>;

export const PrecedingInvoiceInput = z
  .strictObject({
    number: z.string().trim().min(1).max(100).meta({ pattern: NOT_BLANK }).describe('Required (BT-25).'),
    issue_date: CalendarDate.nullable().optional().describe('BT-26.'),
  })
  .meta({ id: 'PrecedingInvoiceInput' });

// --- The tax currency (BT-6) ---

export const taxCurrencyInputFields = {
  tax_currency: CurrencyCode.nullable()
    .optional()
    .describe('The currency VAT is accounted in (BT-6) when it is not the invoice currency; needs `tax_exchange_rate`. Null removes both.'),
  tax_exchange_rate: ExchangeRate.nullable().optional().describe('Units of `tax_currency` per one unit of the invoice currency; required with `tax_currency`.'),
};

