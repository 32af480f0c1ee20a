import { z } from 'zod';
import { Address, CalendarDate, dataOf, Livemode, Metadata, MetadataFilterQuery, MetadataInput, MinorAmount, NoFieldsBody, NOT_BLANK, OPTIONAL_TEXT_RULE, optionalText, pageOf, PageQuery, Period, PeriodInput, SearchQuery, Timestamp } from '../common.ts';
import { CurrencyCode } from '../currencies.ts';
import { IdPathParams, idReference } from '../ids.ts';
import { defineOperation } from '../operation.ts';
import { TAX_RATE_DECIMALS } from '../catalog/prices.ts';
import {
  DEFAULT_UNIT_CODE,
  EinvoiceReadiness,
  PaymentAccount,
  TAX_EXEMPTION_REASON_MAX,
  TaxCategory,
  taxCategoryIssues,
  UnitCode,
  defaultTaxCategory,
} from './einvoice-fields.ts';
import { TaxBreakdownEntry } from './tax-breakdown.ts';
import {
  DocumentAllowanceCharge,
  DocumentAllowanceInput,
  DocumentChargeInput,
  ALLOWANCES_MAX,
  invoicePaymentMeansInput,
  optionalIdentifierScheme,
  optionalVatexCode,
  Payee,
  PayeeInput,
  PaymentMeans,
  PrecedingInvoice,
  PrecedingInvoiceInput,
  QuantityDecimal,
  TaxRepresentative,
  taxCurrencyInputFields,
  UnitAmountDecimal,
} from './business-terms.ts';
import { InvoiceAttachment } from './attachments.ts';
import { documentAsOneOf } from '../schema-documentation.ts';

export const INVOICE_STATUSES = ['draft', 'open', 'overdue', 'paid', 'void'] as const;
export const InvoiceStatus = z.enum(INVOICE_STATUSES).meta({ id: 'InvoiceStatus' });
export type InvoiceStatus = z.infer<typeof InvoiceStatus>;

export const COLLECTION_METHODS = ['send_invoice', 'charge_automatically'] as const;
export const CollectionMethod = z.enum(COLLECTION_METHODS).meta({ id: 'CollectionMethod' });
export type CollectionMethod = z.infer<typeof CollectionMethod>;

export const INVOICE_ITEMS_MAX = 250;
export const DAYS_UNTIL_DUE_MAX = 365;
export const LINE_DESCRIPTION_MAX = 500;
export const INVOICE_TEXT_MAX = 5000;
export const PERCENT_OFF_DECIMALS = 2;
export const INVOICE_REFERENCE_MAX = 200;

/**
 * How tax is computed (decisions.md, refined for EN 16931 BR-CO-17): the lines are grouped by VAT
 * category and rate; each group's base is Σ line amount less the document-level allowances and
 * plus the charges of that category and rate; its tax is round_half_up(base × rate / 100), rounded
 * once; `tax_total` is the sum of the groups' taxes. Each line's `tax` is its share of its group's
 * tax, in proportion to its amount (equally when the group's amounts are all 0), by largest
 * remainder, so Σ line tax = Σ group tax = tax_total still holds: an allowance or charge has no
 * line, and its effect on the tax is carried by the lines of its group. Without allowances or
 * charges a line's exact share is its amount × rate / 100, as before. Invoices finalized before
 * this rule keep their per-line-rounded taxes and totals (and their hashes); a draft from before is
 * priced again when it is edited or finalized.
 */
export const TAX_RULE =
  'Tax is computed per VAT category and rate (EN 16931 BR-CO-17): each group of lines with the same `tax_category` and `tax_rate` has the base Σ line amount − the `allowances` + the `charges` of that category and rate, is taxed round_half_up(base × tax_rate / 100), rounded once, and `tax_total` is the sum of those group taxes (see `tax_breakdown`). A line’s `tax` is its group’s tax shared over the group’s lines in proportion to their amounts (equally when they are all 0) by largest remainder (each line gets its exact share rounded down; the units left over go to the lines with the largest fractions, ties to the earlier line), so Σ line `tax` = Σ group tax = `tax_total`: document-level allowances and charges have no line, and their share of the tax is carried by the lines of their group. Without allowances or charges a line’s exact share is its amount × tax_rate / 100. Invoices finalized before this rule keep the per-line-rounded taxes they were issued with (and their hashes); a draft from before is priced again when edited or finalized.';

/**
 * A line discount as returned: only the key that is set (decisions.md: "exactly one of"), so a
 * line read can be sent back as it is. An exclusive union, which the document renders as oneOf.
 */
export const Discount = z
  .xor([
    z.object({ amount_off: MinorAmount.describe('Minor units off the line.') }),
    z.object({ percent_off: z.number().describe('Percent off the line: 12.5 means 12.5 percent.') }),
  ])
  .describe('Exactly one of `amount_off` or `percent_off`; the same shape `discount` takes on input.')
  .meta({ id: 'Discount' });
export type Discount = z.infer<typeof Discount>;

/** The two shapes a discount takes, for the document: exactly one key, the other absent. */
const AmountOffInput = z
  .strictObject({ amount_off: MinorAmount.describe('Minor units off the line; at most the line subtotal.') })

const PercentOffInput = z
  .strictObject({
    percent_off: z
      .number()
      .min(0)
      .max(100)
      .multipleOf(10 ** -PERCENT_OFF_DECIMALS)
      .describe(`Percent off the line, 0 to 100 with at most ${PERCENT_OFF_DECIMALS} decimals; rounded half up.`),
  })


/**
 * Parsed as one object with a refinement (its messages name the rule), written into the document
 * as the `oneOf` it means.
 */
export const DiscountInput = z
  .strictObject({
    amount_off: MinorAmount.optional().describe('Minor units off the line; at most the line subtotal.'),
    percent_off: z
      .number()
      .min(0)
      .max(100)
      .multipleOf(10 ** -PERCENT_OFF_DECIMALS)
      .optional()
      .describe(`Percent off the line, 0 to 100 with at most ${PERCENT_OFF_DECIMALS} decimals; rounded half up.`),
  })
  .refine((discount) => (discount.amount_off === undefined) !== (discount.percent_off === undefined), {
    message: 'must hold exactly one of amount_off or percent_off',
  })
  .describe('Exactly one of `amount_off` or `percent_off`, as `discount` is returned.')
  .meta({ id: 'DiscountInput', override: documentAsOneOf({ AmountOffInput, PercentOffInput }) });
export type DiscountInput = z.infer<typeof DiscountInput>;

const TaxRateInput = z
  .number()
  .min(0)
  .max(100)
  .multipleOf(10 ** -TAX_RATE_DECIMALS)
  .describe(`Percentage 0 to 100 with at most ${TAX_RATE_DECIMALS} decimals: 8.5 means 8.5 percent.`);

const itemFields = {
  price: idReference('price').describe('A `price_` ID (or UUID) for a catalog line; an archived price is refused.'),
  description: z.string().trim().min(1).max(LINE_DESCRIPTION_MAX).meta({ pattern: NOT_BLANK }),
  unit_amount: MinorAmount.describe('Minor units of the invoice currency.'),
  tax_rate: TaxRateInput,
  // z.int() alone already caps at Number.MAX_SAFE_INTEGER; a .max() of the same bound would report it twice.
  quantity: z.int().min(1).optional().describe('Integer ≥ 1; default 1. Leave it out when sending `quantity_decimal`.').meta({ default: 1 }),
  quantity_decimal: QuantityDecimal.optional().describe('A decimal quantity (BT-129) instead of `quantity`: a string above 0 with up to 4 decimals, such as `"7.5"`. Not together with `quantity`.'),
  price_base_quantity: QuantityDecimal.optional().describe('The quantity the unit amount is the price of (BT-149), such as `"100"` for a price per hundred; default `"1"`. The line amount is round_half_up(quantity × unit amount / price_base_quantity) − discount.'),
  discount: DiscountInput.nullable().optional().describe('Null or absent: no discount.'),
  unit_code: UnitCode.optional().describe(`UN/ECE Recommendation 20 unit of \`quantity\` (BT-130), any case, returned uppercase; default \`${DEFAULT_UNIT_CODE}\` (one).`),
  tax_category: TaxCategory.optional().describe(
    'VAT category (BT-151): `S` standard rate (needs a rate above 0), `Z` zero rated (rate 0), `E` exempt, `AE` reverse charge, `K` intra-community supply, `G` export outside the EU, `O` not subject to VAT (`AE`, `K`, `G`, `O` need rate 0). Default `S` when the rate is above 0, else `Z`. On a catalog line it is checked against the price’s rate.',
  ),
  tax_exemption_reason: optionalText(TAX_EXEMPTION_REASON_MAX)
    .optional()
    .describe(`Why no VAT is charged (BT-120), such as "Reverse charge": required for \`E\`, \`AE\`, \`K\`, \`G\` and \`O\`, refused for \`S\` and \`Z\`. ${OPTIONAL_TEXT_RULE}`),
  period: PeriodInput.nullable().optional().describe('The billing period of the line (BG-26), both days included, on ad-hoc and catalog lines; frozen at finalization. Null or absent: none.'),
  tax_exemption_reason_code: optionalVatexCode()
    .optional()
    .describe(`CEF VATEX code of the exemption (BT-121), such as \`VATEX-EU-AE\`; satisfies the rule for \`E\`, \`AE\`, \`K\`, \`G\`, \`O\` like \`tax_exemption_reason\` does, and is refused for \`S\` and \`Z\`. ${OPTIONAL_TEXT_RULE}`),
  sku: optionalText(100).optional().describe(`The seller’s item identifier (BT-155). ${OPTIONAL_TEXT_RULE}`),
  standard_id: optionalText(100).optional().describe(`A standard item identifier such as a GTIN (BT-157); needs \`standard_id_scheme\`. ${OPTIONAL_TEXT_RULE}`),
  standard_id_scheme: optionalIdentifierScheme().optional().describe(`ISO 6523 ICD scheme of \`standard_id\`, such as \`0160\` (GTIN). ${OPTIONAL_TEXT_RULE}`),
  note: optionalText(1000).optional().describe(`A note on the line (BT-127). ${OPTIONAL_TEXT_RULE}`),
};
const unit_amount_decimal = UnitAmountDecimal.optional().describe('A unit amount in minor units with up to 6 decimals (BT-146), as a string such as `"0.125"`, instead of `unit_amount`; ad-hoc lines only.');
const { price, unit_amount, tax_rate, description, ...lineFields } = itemFields;

/** The two kinds of line, for the document (the parser below checks the same rules with messages that name them). */

const EXEMPT = ['E', 'AE', 'K', 'G', 'O'];
const ZERO_RATE = ['Z', 'AE', 'K', 'G', 'O'];
const categoryIs = (values: string[]) => ({ required: ['tax_category'], properties: { tax_category: { enum: values } } });
/** `taxCategoryIssues` as JSON Schema conditions, so a client (or a fuzzer) can tell a valid ad-hoc line from the schema alone. */
const EXEMPTION_REASON_CONDITION = {
  if: categoryIs(EXEMPT),
  then: { required: ['tax_exemption_reason'], properties: { tax_exemption_reason: { type: 'string', pattern: '\\S' } } },
  else: { properties: { tax_exemption_reason: { enum: ['', null] }, tax_exemption_reason_code: { enum: ['', null] } } },
};
const TAX_CATEGORY_CONDITIONS = [
  { if: categoryIs(['S']), then: { required: ['tax_rate'], properties: { tax_rate: { exclusiveMinimum: 0 } } } },
  { if: categoryIs(ZERO_RATE), then: { properties: { tax_rate: { const: 0 } } } },
  EXEMPTION_REASON_CONDITION,
];

/** A property the condition's branch refuses whatever its value: it must be left out. */
const ABSENT = { not: {} };
/** `quantity_decimal` replaces `quantity`. */
const ONE_QUANTITY_CONDITION = { if: { required: ['quantity_decimal'], properties: { quantity_decimal: { type: 'string' } } }, then: { properties: { quantity: ABSENT } } };
/** An ad-hoc line's unit amount: exactly one of the integer and the decimal form. */
const UNIT_AMOUNT_CONDITION = {
  if: { required: ['unit_amount_decimal'], properties: { unit_amount_decimal: { type: 'string' } } },
  then: { properties: { unit_amount: ABSENT } },
  else: { required: ['unit_amount'], properties: { unit_amount: { type: 'integer' } } },
};
/** A standard item identifier names its scheme; a scheme alone names nothing. */
const STANDARD_ID_CONDITION = {
  if: { required: ['standard_id'], properties: { standard_id: { type: 'string', pattern: '\\S' } } },
  then: { required: ['standard_id_scheme'], properties: { standard_id_scheme: { type: 'string', pattern: '^\\d{4}$' } } },
  else: { properties: { standard_id_scheme: ABSENT } },
};
const LINE_CONDITIONS = [ONE_QUANTITY_CONDITION, STANDARD_ID_CONDITION];

const CatalogLineInput = z
  .strictObject({ price, description: description.optional().describe('Overrides the product name.'), ...lineFields })
  .describe('A catalog line: unit amount, currency and tax rate come from the price, which must be active and in the invoice currency; the description defaults to the product name. `tax_category` is checked against the price’s rate; `E`, `AE`, `K`, `G`, `O` need a `tax_exemption_reason`, which the others refuse.')
  // The category's rate is the price's, known only once it is read; whether a reason is needed is known now.
  .meta({ allOf: [EXEMPTION_REASON_CONDITION, ...LINE_CONDITIONS] })

const AdHocLineInput = z
  .strictObject({
    description: description.describe('What is invoiced.'),
    unit_amount: unit_amount.optional().describe('Minor units of the invoice currency; this or `unit_amount_decimal` is required.'),
    unit_amount_decimal,
    tax_rate: tax_rate.optional().describe('Default 0.'),
    ...lineFields,
  })
  .describe('An ad-hoc line: description and unit amount (`unit_amount` or `unit_amount_decimal`) as sent. `S` needs a rate above 0; `Z`, `AE`, `K`, `G`, `O` need rate 0; `E`, `AE`, `K`, `G`, `O` need a `tax_exemption_reason`, which the others refuse.')
  .meta({ allOf: [UNIT_AMOUNT_CONDITION, ...LINE_CONDITIONS, ...TAX_CATEGORY_CONDITIONS] });

/**
 * One line as sent: a catalog line names a `price` (unit amount, currency and tax rate come from
 * it; the description defaults to the product's name); an ad-hoc line gives `description` and
 * `unit_amount`. Every line sent is a new line.
 */
export const InvoiceItemInput = z
  .strictObject({
    ...itemFields,
    price: price.optional(),
    description: description.optional().describe('Required on ad-hoc lines; overrides the product name on catalog lines.'),
    unit_amount: unit_amount.optional().describe('Required on ad-hoc lines (or `unit_amount_decimal`), in minor units of the invoice currency; refused on catalog lines.'),
    unit_amount_decimal,
    tax_rate: tax_rate.optional().describe('Ad-hoc lines only; default 0. Catalog lines take the price’s rate.'),
  })
  .superRefine((item, ctx) => {
    const refuse = (key: string, message: string) => ctx.addIssue({ code: 'custom', path: [key], message });
    if (item.quantity !== undefined && item.quantity_decimal !== undefined) refuse('quantity_decimal', 'replaces quantity; send one of them');
    if (item.standard_id != null && item.standard_id_scheme == null) refuse('standard_id_scheme', 'is required with standard_id');
    if (item.price !== undefined) {
      if (item.unit_amount !== undefined) refuse('unit_amount', 'comes from the price; leave it out on a line with price');
      if (item.unit_amount_decimal !== undefined) refuse('unit_amount_decimal', 'comes from the price; leave it out on a line with price');
      if (item.tax_rate !== undefined) refuse('tax_rate', 'comes from the price; leave it out on a line with price');
    } else {
      if (item.description === undefined) refuse('description', 'is required on a line without price');
      if (item.unit_amount === undefined && item.unit_amount_decimal === undefined) refuse('unit_amount', 'is required on a line without price (or unit_amount_decimal)');
      if (item.unit_amount !== undefined && item.unit_amount_decimal !== undefined) refuse('unit_amount_decimal', 'replaces unit_amount; send one of them');
      // A catalog line's rate is known only once its price is read: billing checks those lines then.
      const taxRate = item.tax_rate ?? 0;
      const taxCategory = item.tax_category ?? defaultTaxCategory(taxRate);
      const taxExemptionReason = item.tax_exemption_reason ?? item.tax_exemption_reason_code ?? null;
      // A VATEX code sent alone where no exemption belongs is named itself.
      const codeAlone = item.tax_exemption_reason == null && item.tax_exemption_reason_code != null;
      for (const issue of taxCategoryIssues({ taxCategory, taxRate, taxExemptionReason })) refuse(codeAlone && issue.field === 'tax_exemption_reason' ? 'tax_exemption_reason_code' : issue.field, issue.message);
    }
  })
  .describe('A catalog line (with `price`) or an ad-hoc line (with `description` and `unit_amount`).')
  .meta({ id: 'InvoiceItemInput', override: documentAsOneOf({ CatalogLineInput, AdHocLineInput }) });
export type InvoiceItemInput = z.infer<typeof InvoiceItemInput>;

/** An invoice line item. */
export const InvoiceLine = z
  .object({
    id: z.string().meta({ example: 'ii_0190f3e2c1b27a8e9d1f3c4b5a697887' }),
    object: z.literal('invoiceitem'),
    livemode: Livemode,
    price: z.string().nullable().describe('`price_` ID of a catalog line; null for ad-hoc lines.'),
    product: z.string().nullable().describe('`prod_` ID of a catalog line; null for ad-hoc lines.'),
    description: z.string(),
    quantity: z.int().describe('The quantity; for a line sent with `quantity_decimal`, that rounded half up (the amount uses the exact one).'),
    quantity_decimal: z.string().describe('The exact quantity (BT-129) as a decimal string: `"3"` for `quantity` 3, `"7.5"` as sent.').meta({ example: '7.5' }),
    unit_amount: z.int().describe('Minor units per unit; for a line sent with `unit_amount_decimal`, that rounded half up (the amount uses the exact one).'),
    unit_amount_decimal: z.string().describe('The exact unit amount in minor units (BT-146) as a decimal string: `"1500"`, or `"0.125"` as sent.').meta({ example: '1500' }),
    price_base_quantity: z.string().describe('The quantity the unit amount is the price of (BT-149); `"1"` unless sent.').meta({ example: '1' }),
    discount: Discount.nullable(),
    discount_amount: z.int().describe('The discount in minor units.'),
    tax_rate: z.number().describe('Percentage: 8.5 means 8.5 percent.'),
    amount: z.int().describe('round_half_up(quantity_decimal × unit_amount_decimal / price_base_quantity) − discount_amount: quantity × unit_amount − discount_amount for whole quantities and amounts.'),
    tax: z.int().describe(`This line's share of its VAT group's tax. ${TAX_RULE}`),
    unit_code: z.string().describe(`UN/ECE Recommendation 20 unit code (BT-130); \`${DEFAULT_UNIT_CODE}\` unless sent.`).meta({ example: DEFAULT_UNIT_CODE }),
    tax_category: TaxCategory.describe('VAT category code (BT-151).'),
    tax_exemption_reason: z.string().nullable().describe('Why no VAT is charged (BT-120); null for `S` and `Z`.'),
    period: Period.nullable().describe('The billing period of the line (BG-26), both days included; null when none was set.'),
    tax_exemption_reason_code: z.string().nullable().describe('CEF VATEX code (BT-121); null when none was sent.'),
    sku: z.string().nullable().describe('The seller’s item identifier (BT-155).'),
    standard_id: z.string().nullable().describe('Standard item identifier (BT-157).'),
    standard_id_scheme: z.string().nullable().describe('ISO 6523 ICD scheme of `standard_id`.'),
    note: z.string().nullable().describe('Line note (BT-127).'),
  })
  .meta({ id: 'InvoiceLine' });
export type InvoiceLine = z.infer<typeof InvoiceLine>;

/** The seller as it was at finalization. */
export const BusinessSnapshot = z
  .object({
    business_name: z.string().nullable(),
    email: z.string().nullable(),
    address: Address,
    tax_id: z.string().nullable(),
    payment_instructions: z.string().nullable(),
    brand_color: z.string().nullable(),
    phone: z.string().nullable().describe('Seller contact telephone (BT-42).'),
    contact_name: z.string().nullable().describe('Seller contact point (BT-41).'),
    electronic_address: z
      .string()
      .nullable()
      .describe('Seller electronic address (BT-34): the account’s, else its email; null when it had neither.'),
    electronic_address_scheme: z.string().nullable().describe('EAS code of `electronic_address` (`EM` for an email address); null exactly when the address is.'),
    payment_account: PaymentAccount.nullable().describe('Credit transfer account (BG-17), payment means code 58.'),
    trading_name: z.string().nullable().describe('Seller trading name (BT-28).'),
    registration_id: z.string().nullable().describe('Seller legal registration identifier (BT-30), such as a commercial register number.'),
    registration_id_scheme: z.string().nullable().describe('ISO 6523 ICD scheme of `registration_id`.'),
    legal_info: z.string().nullable().describe('Seller additional legal information (BT-33), such as share capital or register court.'),
    tax_representative: TaxRepresentative.nullable().describe('The seller’s tax representative (BG-11).'),
  })
  .describe('The seller as it was at finalization; `tax_id` is the seller VAT identifier (BT-31). Invoices finalized before these e-invoice fields existed show them as null.')
  .meta({ id: 'BusinessSnapshot' });
export type BusinessSnapshot = z.infer<typeof BusinessSnapshot>;

/** The customer as it was at finalization. */
export const CustomerSnapshot = z
  .object({
    name: z.string(),
    email: z.string().nullable(),
    address: Address,
    tax_id: z.string().nullable().describe('Buyer VAT identifier (BT-48).'),
    electronic_address: z.string().nullable().describe('Buyer electronic address (BT-49): the customer’s, else its email; null when it had neither.'),
    electronic_address_scheme: z.string().nullable().describe('EAS code of `electronic_address` (`EM` for an email address); null exactly when the address is.'),
    buyer_reference: z.string().nullable().describe('The customer’s default buyer reference at finalization.'),
    identifier: z.string().nullable().describe('Buyer identifier (BT-46).'),
    identifier_scheme: z.string().nullable().describe('ISO 6523 ICD scheme of `identifier`.'),
    contact_name: z.string().nullable().describe('Buyer contact point (BT-56).'),
  })
  .describe('The customer as it was at finalization. Invoices finalized before the e-invoice fields existed show them as null.')
  .meta({ id: 'CustomerSnapshot' });
export type CustomerSnapshot = z.infer<typeof CustomerSnapshot>;

const invoiceFields = {
  id: z.string().meta({ example: 'in_0190f3e2c1b27a8e9d1f3c4b5a697887' }),
  object: z.literal('invoice'),
  livemode: Livemode,
  number: z.string().nullable().describe('Null while draft; assigned at finalization from the consecutive series.'),
  status: InvoiceStatus.describe('`overdue` is an open invoice past its due date in the workspace’s time zone.'),
  customer: z.string().describe('`cus_` ID.'),
  customer_name: z.string().describe('The customer’s name when the invoice was last saved (finalized: as in the snapshot).'),
  subscription: z.string().nullable().describe('The `sub_` ID of the subscription that made this invoice; null otherwise.'),
  currency: z.string().describe('Uppercase ISO 4217 code.').meta({ example: 'USD' }),
  collection_method: CollectionMethod,
  issue_date: CalendarDate,
  due_date: CalendarDate.nullable(),
  days_until_due: z.int().nullable().describe('The days that set `due_date`, when it was set that way.'),
  subtotal: z.int().describe('Σ of the lines before their discounts: Σ round_half_up(quantity × unit amount / price_base_quantity).'),
  discount_total: z.int().describe('Σ of the line discounts.'),
  allowance_total: z.int().describe('Σ of the document-level `allowances` (BT-107).'),
  charge_total: z.int().describe('Σ of the document-level `charges` (BT-108).'),
  taxable_amount: z.int().describe('subtotal − discount_total − allowance_total + charge_total (BT-109).'),
  tax_total: z.int().describe(TAX_RULE),
  total: z.int().describe('taxable_amount + tax_total.'),
  prepaid_amount: z.int().describe('Paid before the invoice was issued (BT-113); 0 unless sent.'),
  amount_due: z.int().describe('0 while draft; total − prepaid_amount while open or overdue (partial payments do not change it); 0 once paid or void.'),
  amount_paid: z.int().describe('Σ of the invoice’s payments (GET /invoices/{id}/payments).'),
  amount_remaining: z.int().describe('amount_due − amount_paid while open or overdue: what is still to be paid; 0 for drafts, paid and void invoices. The payment that brings it to 0 makes the invoice paid.'),
  remittance_reference: z
    .string()
    .nullable()
    .describe('ISO 11649 creditor reference (`RF` + 2 check digits + up to 21 characters) derived from the number at finalization; printed on the PDF and in the e-invoices (BT-83). Null while draft, and for invoices finalized before it existed.')
    .meta({ example: 'RF18INV20260001' }),
  notes: z.string().nullable(),
  footer: z.string().nullable(),
  buyer_reference: z
    .string()
    .nullable()
    .describe('Buyer reference (BT-10; XRechnung: the Leitweg-ID). On a draft as sent; finalization fills an empty one with the customer’s `buyer_reference`.'),
  purchase_order: z.string().nullable().describe('Purchase order reference (BT-13).'),
  delivery_date: CalendarDate.nullable().describe('Actual delivery date (BT-72). On a draft as sent; finalization fills an empty one with `issue_date` unless a `service_period` is set.'),
  service_period: Period.nullable().describe('The period the invoice bills services for (BG-14); documents print it instead of a delivery date.'),
  allowances: z.array(DocumentAllowanceCharge).describe('Document-level allowances (BG-20), in order.'),
  charges: z.array(DocumentAllowanceCharge).describe('Document-level charges (BG-21), in order.'),
  tax_currency: z.string().nullable().describe('The currency VAT is accounted in (BT-6); null when it is the invoice currency.'),
  tax_exchange_rate: z.string().nullable().describe('Units of `tax_currency` per one unit of the invoice currency, as a decimal string.'),
  tax_total_in_tax_currency: z
    .int()
    .nullable()
    .describe('The VAT total in `tax_currency` (BT-111), minor units of that currency: round_half_up(tax_total × tax_exchange_rate), converted between the two currencies’ minor units; null without a tax currency.'),
  payment_means: z
    .array(PaymentMeans)
    .describe('How to pay (BG-16): as sent on a draft ([] means the account’s); at finalization the invoice’s own, else the account’s entries of its first entry’s type, frozen. Entries share one type.'),
  payee: Payee.nullable().describe('The party paid when it is not the seller (BG-10).'),
  preceding_invoice: PrecedingInvoice.nullable().describe('An earlier invoice this one refers to (BG-3).'),
  attachments: z.array(InvoiceAttachment).describe('Supporting documents (BG-24), embedded in the e-invoices; added and removed on drafts only.'),
  locale: z
    .string()
    .nullable()
    .describe('Language and formats of the PDF, public page and e-mails (BCP 47): frozen at finalization from the customer’s `preferred_locale`, else the account’s `locale`. Null while draft.')
    .meta({ example: 'de-DE' }),
  business_snapshot: BusinessSnapshot.nullable().describe('Frozen at finalization; null while draft.'),
  customer_snapshot: CustomerSnapshot.nullable().describe('Frozen at finalization; null while draft.'),
  public_url_token: z.string().nullable(),
  public_url: z.string().nullable().describe('The public page: `{public_url_base}/i/<public_url_token>`.'),
  finalized_at: Timestamp.nullable(),
  paid_at: Timestamp.nullable(),
  payment_reference: z.string().nullable(),
  voided_at: Timestamp.nullable(),
  void_reason: z.string().nullable(),
  snapshot_sha256: z.string().nullable().describe('SHA-256 (hex) of the canonical JSON of the finalized invoice.'),
  chain_sha256: z.string().nullable().describe('SHA-256 (hex) of the previous invoice’s chain value in the series followed by this snapshot hash.'),
  metadata: Metadata,
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const InvoiceLines = z.object({ object: z.literal('list'), data: z.array(InvoiceLine) }).meta({ id: 'InvoiceLines' });

export const Invoice = z
  .object({
    ...invoiceFields,
    lines: InvoiceLines,
    tax_breakdown: z.array(TaxBreakdownEntry).describe(`VAT per category and rate (BG-23), from the lines and the document-level allowances and charges. ${TAX_RULE}`),
    einvoice: EinvoiceReadiness.nullable().describe(
      'Which e-invoice profiles this invoice qualifies for, and what each lacks; computed by `einvoiceReadiness` in the contracts, the same check the e-invoice export answers 400 with. A finalized invoice is checked as it was frozen (its snapshots). A draft is checked as it would be if finalized now, with the account and the customer as they are now: what finalize with `einvoice_required` refuses it for, so complete them (account, customer, `buyer_reference`) until the profile is `ready`. Null for a draft only when the customer could not be read (the catalog unavailable).',
    ),
  })
  .meta({ id: 'Invoice' });
export type Invoice = z.infer<typeof Invoice>;

/** The pay and void responses: the invoice without `lines`. */
export const InvoiceSummary = z.object(invoiceFields).meta({ id: 'InvoiceSummary' });
export type InvoiceSummary = z.infer<typeof InvoiceSummary>;

const text = optionalText(INVOICE_TEXT_MAX);
const items = z
  .array(InvoiceItemInput)
  .min(1, 'needs at least one item')
  .max(INVOICE_ITEMS_MAX)
  .describe(`1 to ${INVOICE_ITEMS_MAX} lines.`);

const invoiceInputFields = {
  currency: CurrencyCode.optional().describe('Default: the account’s currency. Accepted in any case.'),
  collection_method: CollectionMethod.optional().describe('Default `send_invoice`.'),
  issue_date: CalendarDate.optional().describe('Default: today in the workspace’s time zone.'),
  due_date: optionalText(10, { format: CalendarDate }).optional().describe(`Not before issue_date. ${OPTIONAL_TEXT_RULE}`),
  days_until_due: z
    .int()
    .min(0)
    .max(DAYS_UNTIL_DUE_MAX)
    .nullable()
    .optional()
    .describe(`0 to ${DAYS_UNTIL_DUE_MAX}: sets due_date = issue_date + days_until_due; ignored when due_date is sent.`),
  notes: text.optional().describe(`At most ${INVOICE_TEXT_MAX} characters. ${OPTIONAL_TEXT_RULE}`),
  footer: text.optional().describe(`At most ${INVOICE_TEXT_MAX} characters. ${OPTIONAL_TEXT_RULE}`),
  buyer_reference: optionalText(INVOICE_REFERENCE_MAX)
    .optional()
    .describe(`Buyer reference (BT-10; XRechnung requires it: the Leitweg-ID). Empty: finalization takes the customer's \`buyer_reference\`. ${OPTIONAL_TEXT_RULE}`),
  purchase_order: optionalText(INVOICE_REFERENCE_MAX).optional().describe(`Purchase order reference (BT-13). ${OPTIONAL_TEXT_RULE}`),
  delivery_date: optionalText(10, { format: CalendarDate })
    .optional()
    .describe(`Actual delivery date (BT-72). Empty: finalization takes \`issue_date\`, unless \`service_period\` is set. ${OPTIONAL_TEXT_RULE}`),
  service_period: PeriodInput.nullable().optional().describe('The period billed (BG-14), `start` ≤ `end`; null removes it.'),
  allowances: z.array(DocumentAllowanceInput).max(ALLOWANCES_MAX).optional().describe(`Document-level allowances (BG-20), at most ${ALLOWANCES_MAX}; replaces the list.`),
  charges: z.array(DocumentChargeInput).max(ALLOWANCES_MAX).optional().describe(`Document-level charges (BG-21) such as freight, at most ${ALLOWANCES_MAX}; replaces the list.`),
  prepaid_amount: MinorAmount.optional().describe('Paid before the invoice was issued (BT-113), in minor units; at most the total. At finalization amount_due = total − prepaid_amount; an invoice whose prepaid amount (above 0) is its total is paid at finalization.'),
  ...taxCurrencyInputFields,
  payment_means: invoicePaymentMeansInput.optional().describe('How this invoice is paid (BG-16), replacing the list; entries share one `type` (400 otherwise). [] (default): the account’s `payment_means` entries of its first entry’s type.'),
  payee: PayeeInput.nullable().optional(),
  preceding_invoice: PrecedingInvoiceInput.nullable().optional().describe('An earlier invoice this one refers to (BG-3); null removes it.'),
  metadata: MetadataInput.optional(),
};

/** A tax currency comes with its exchange rate (checked on the draft as it results, so a PATCH may also send the rate alone). */
const TAX_CURRENCY_CONDITION = {
  if: { required: ['tax_currency'], properties: { tax_currency: { type: 'string' } } },
  then: { required: ['tax_exchange_rate'], properties: { tax_exchange_rate: { type: 'string', pattern: '^[1-9][0-9]{0,5}(?:\\.[0-9]{1,4})?$' } } },
};

export const CreateInvoiceBody = z
  .strictObject({
    customer: idReference('customer').describe('`cus_` ID (or UUID) of a customer in the workspace.'),
    ...invoiceInputFields,
    items,
  })
  .meta({ id: 'CreateInvoiceBody', allOf: [TAX_CURRENCY_CONDITION] });
export type CreateInvoiceBody = z.infer<typeof CreateInvoiceBody>;

export const UpdateInvoiceBody = z
  .strictObject({
    customer: idReference('customer').optional(),
    ...invoiceInputFields,
    items: items.optional().describe('Replaces every line; at least one.'),
  })
  .meta({ id: 'UpdateInvoiceBody', allOf: [TAX_CURRENCY_CONDITION] });
export type UpdateInvoiceBody = z.infer<typeof UpdateInvoiceBody>;


export const PayInvoiceBody = z
  .strictObject({
    paid_on: CalendarDate.optional().describe('When the payment arrived, not after today; default: now. Stored in `paid_at` (midnight UTC of that date).'),
    payment_reference: optionalText(500).optional().describe(`Free text such as a bank transaction ID; not printed on the PDF. ${OPTIONAL_TEXT_RULE}`),
  })
  .meta({ id: 'PayInvoiceBody' });
export type PayInvoiceBody = z.infer<typeof PayInvoiceBody>;

export const VoidInvoiceBody = z
  .strictObject({
    reason: optionalText(500).optional().describe(`Stored in \`void_reason\` and shown in the timeline. ${OPTIONAL_TEXT_RULE}`),
  })
  .meta({ id: 'VoidInvoiceBody', examples: [{ reason: 'Issued twice by mistake.' }] });
export type VoidInvoiceBody = z.infer<typeof VoidInvoiceBody>;

/** A datetime, or a date meaning that whole day in UTC. */
const CreatedBound = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()])
  .describe('ISO 8601 datetime, or a date (the whole day, UTC).');

export const ListInvoicesQuery = z.strictObject({
  ...PageQuery.shape,
  customer: idReference('customer').optional().describe('Only this customer’s invoices (`cus_` ID or UUID).'),
  status: InvoiceStatus.optional().describe('`overdue` and `open` are told apart as reads report them.'),
  q: SearchQuery.optional().describe('Partial, case-insensitive match on number, customer name and notes.'),
  'created[gte]': CreatedBound.optional().describe('Created at or after.'),
  'created[lte]': CreatedBound.optional().describe('Created at or before.'),
  ...MetadataFilterQuery.shape,
});
export type ListInvoicesQuery = z.infer<typeof ListInvoicesQuery>;

const timelineBase = {
  object: z.literal('timeline_entry'),
  livemode: Livemode,
  occurred_at: Timestamp,
  key_id: z.string().nullable().describe('The API key that acted; null for the system (the overdue sweep).'),
  request_id: z.string().nullable(),
};

export const TimelineEntry = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('created'), ...timelineBase }),
    z.object({ type: z.literal('updated'), ...timelineBase }),
    z.object({ type: z.literal('finalized'), ...timelineBase, number: z.string() }),
    z.object({ type: z.literal('paid'), ...timelineBase, paid_on: CalendarDate.nullable(), payment_reference: z.string().nullable() }),
    z.object({ type: z.literal('voided'), ...timelineBase, reason: z.string().nullable() }),
    z.object({ type: z.literal('overdue'), ...timelineBase, due_date: CalendarDate }),
  ])
  .meta({ id: 'TimelineEntry' });
export type TimelineEntry = z.infer<typeof TimelineEntry>;
export type TimelineEntryType = TimelineEntry['type'];

const tag = 'Invoices';
const service = 'billing';

export const listInvoices = defineOperation({
  operationId: 'listInvoices',
  summary: 'List invoices, newest first',
  tag, service, method: 'GET', path: '/api/v1/invoices', scope: 'invoices:read', idempotency: 'none',
  query: ListInvoicesQuery,
  responses: { 200: { description: 'A page of invoices.', schema: pageOf(Invoice) } },
});

export const createInvoice = defineOperation({
  operationId: 'createInvoice',
  summary: 'Create a draft invoice',
  description:
    'Catalog lines take description, unit amount and tax rate from the price, which must be active and in the invoice currency. The customer must not be deleted: a deleted customer is a 400 `invalid_request` on `customer`, as an archived price is on its line.',
  tag, service, method: 'POST', path: '/api/v1/invoices', scope: 'invoices:write', idempotency: 'required',
  body: CreateInvoiceBody,
  errors: [404],
  responses: { 201: { description: 'The draft: number null, amount_due 0.', schema: dataOf(Invoice) } },
});

export const retrieveInvoice = defineOperation({
  operationId: 'retrieveInvoice',
  summary: 'Retrieve an invoice',
  tag, service, method: 'GET', path: '/api/v1/invoices/:id', scope: 'invoices:read', idempotency: 'none',
  params: IdPathParams,
  responses: { 200: { description: 'The invoice.', schema: dataOf(Invoice) } },
});

export const updateInvoice = defineOperation({
  operationId: 'updateInvoice',
  summary: 'Update a draft invoice',
  description:
    'Omitted fields keep their values; `items` replaces every line. Changing `currency` drops catalog lines priced in the old currency. A `due_date` that `days_until_due` set moves with `issue_date` (issue date + days); one sent as `due_date` stays. `customer` may not name a deleted customer (400 `invalid_request` on `customer`), but a draft whose customer was deleted later keeps it and can still be finalized. A PATCH that changes nothing (`{}`, or only the values the invoice already has) answers 200 with the invoice as it is: `updated_at` stays, no `invoice.updated` event, no timeline entry. Sending `items` always counts as a change, since every line sent is a new line with a new ID. 409 `invalid_state` once finalized.',
  tag, service, method: 'PATCH', path: '/api/v1/invoices/:id', scope: 'invoices:write', idempotency: 'optional',
  params: IdPathParams,
  body: UpdateInvoiceBody,
  responses: { 200: { description: 'The updated draft with its full lines.', schema: dataOf(Invoice) } },
});

export const deleteInvoice = defineOperation({
  operationId: 'deleteInvoice',
  summary: 'Delete a draft invoice',
  description: 'Drafts have no number, so deleting one leaves no gap. 409 `invalid_state` once finalized.',
  tag, service, method: 'DELETE', path: '/api/v1/invoices/:id', scope: 'invoices:write', idempotency: 'optional',
  params: IdPathParams,
  responses: { 204: { description: 'Deleted.' } },
});

export const finalizeInvoice = defineOperation({
  operationId: 'finalizeInvoice',
  summary: 'Finalize a draft: assign its number, freeze it, open it',
  description:
    'Takes no body (none, or `{}`). Atomically assigns the next number of the series, freezes the business and customer snapshots, sets finalized_at, the public link and amount_due = total − prepaid_amount; a draft whose prepaid_amount (above 0) is its whole total is paid at finalization (`invoice.paid` follows `invoice.finalized`). The customer snapshot comes from the customer as it is now, also when it was deleted after the draft named it. On an open or overdue invoice it returns the invoice unchanged (200); on a paid or void invoice it is a 409.',
  tag, service, method: 'POST', path: '/api/v1/invoices/:id/finalize', scope: 'invoices:finalize', idempotency: 'required',
  params: IdPathParams,
  body: NoFieldsBody,
  bodyOptional: true,
  responses: { 200: { description: 'The finalized invoice.', schema: dataOf(Invoice) } },
});

export const payInvoice = defineOperation({
  operationId: 'payInvoice',
  summary: 'Record a payment of everything still due, received outside the service',
  description: 'Bookkeeping only: no charge, no funds moved. The invoice must be open or overdue. Records one payment of the whole `amount_remaining` (see `createPayment` for partial payments), which makes the invoice paid.',
  tag, service, method: 'POST', path: '/api/v1/invoices/:id/pay', scope: 'payments:write', idempotency: 'required',
  params: IdPathParams,
  body: PayInvoiceBody,
  bodyOptional: true,
  responses: { 200: { description: 'The paid invoice, without `lines`.', schema: dataOf(InvoiceSummary) } },
});

export const voidInvoice = defineOperation({
  operationId: 'voidInvoice',
  summary: 'Void an unpaid finalized invoice',
  description: 'The number stays on the record. The invoice must be open or overdue and have no payment (409 `invalid_state` otherwise): a paid or partly paid invoice cannot be voided.',
  tag, service, method: 'POST', path: '/api/v1/invoices/:id/void', scope: 'invoices:finalize', idempotency: 'required',
  params: IdPathParams,
  body: VoidInvoiceBody,
  bodyOptional: true,
  responses: { 200: { description: 'The void invoice, without `lines`; `paid_at` is null.', schema: dataOf(InvoiceSummary) } },
});

export const listInvoiceTimeline = defineOperation({
  operationId: 'listInvoiceTimeline',
  summary: 'What happened to an invoice, oldest first',
  description: 'Created, updated, finalized (number), paid (date, reference), voided (reason) and overdue, each with its time and the key that did it.',
  tag, service, method: 'GET', path: '/api/v1/invoices/:id/timeline', scope: 'invoices:read', idempotency: 'none',
  params: IdPathParams,
  query: PageQuery,
  responses: { 200: { description: 'A page of timeline entries, oldest first.', schema: pageOf(TimelineEntry) } },
});

export const invoiceOperations = [
  listInvoices,
  createInvoice,
  retrieveInvoice,
  updateInvoice,
  deleteInvoice,
  finalizeInvoice,
  payInvoice,
  voidInvoice,
  listInvoiceTimeline,
];
