import type { z } from 'zod';
import {
  type AddressInput,
  ALLOWANCE_REASON_CODES,
  ATTACHMENT_CONTENT_TYPES,
  CreateCustomerBody,
  CreateInvoiceAttachmentBody,
  CreateInvoiceBody,
  DocumentAllowanceInput,
  DocumentChargeInput,
  Iban,
  InvoiceItemInput,
  minorUnitExponent,
  OPERATIONS,
  PAYMENT_MEANS_CODES,
  PaymentMeansInput,
  UpdateAccountBody,
} from '@invoicing/contracts';
import { type BusinessTerms, comparePaths, termOf } from './business-terms.ts';
import { decimalPlaces, divideRounded, isIntegerDecimal, isNegative, multiplyDecimal, shiftDecimal } from './exact-decimal.ts';

/**
 * From the business terms of a CEN example to the requests of our API that rebuild it
 * (decisions.md: "E-invoices (EN 16931)", "Payments and bank statements", "EN 16931 business terms
 * beyond the first set"), and the terms no request can state, each with its reason.
 */

// ---------------------------------------------------------------- request shapes
// The contracts' own input types: a translation that sends a field the contracts shape otherwise fails the typecheck.
export type AccountRequest = z.input<typeof UpdateAccountBody>;
export type CustomerRequest = z.input<typeof CreateCustomerBody>;
export type LineRequest = z.input<typeof InvoiceItemInput>;
export type InvoiceRequest = Omit<z.input<typeof CreateInvoiceBody>, 'customer' | 'items'> & { items: LineRequest[] };
export type AllowanceChargeRequest = z.input<typeof DocumentAllowanceInput> & z.input<typeof DocumentChargeInput>;
export type PaymentMeansRequest = z.input<typeof PaymentMeansInput>;
export type AttachmentRequest = z.input<typeof CreateInvoiceAttachmentBody>;

const ATTACHMENT_TYPES: readonly string[] = ATTACHMENT_CONTENT_TYPES;
/** The first bytes the API checks an attachment's content against. */
const CONTENT_SIGNATURES: Record<string, Buffer> = { 'application/pdf': Buffer.from('%PDF-'), 'image/png': Buffer.from([0x89, 0x50, 0x4e, 0x47]), 'image/jpeg': Buffer.from([0xff, 0xd8, 0xff]) };
const PAYMENT_MEANS_TYPES = Object.fromEntries(Object.entries(PAYMENT_MEANS_CODES).map(([type, code]) => [code, type])) as Record<string, PaymentMeansRequest['type']>;
/** ISO 6523 ICD, as the contracts take identifier schemes. */
const ICD_SCHEME = /^\d{4}$/;
const VATEX = /^VATEX-[A-Z0-9-]{2,25}$/;
const TAX_CATEGORIES = ['S', 'Z', 'E', 'AE', 'K', 'G', 'O'];
const EXEMPT_CATEGORIES = ['E', 'AE', 'K', 'G', 'O'];
/** What every line discount of ours says in BG-27 (services/documents: reason "Discount", UNTDID 5189 code 95). */
const LINE_DISCOUNT_REASON = 'Discount';
const LINE_DISCOUNT_REASON_CODE = '95';

// ---------------------------------------------------------------- what each business term becomes

/**
 * Every business term the extractor reads, and what becomes of it: an API field (`field`), nothing
 * because decisions.md names no field (`none`, with the reason), or a value our system sets itself
 * (`derived`, compared by rule rather than literally). Indexes are left out: `BG-25/BT-129`.
 */
export type TermRule = { field: string } | { none: string } | { derived: string };
const none = (reason: string): TermRule => ({ none: reason });
const noField = (what: string): TermRule => none(`${what}: decisions.md names no field`);

export const TERM_RULES: Record<string, TermRule> = {
  'BT-1': { derived: 'invoice number: assigned by the series (INV/{YYYY}/{SEQ:4})' },
  'BT-2': { field: 'invoice.issue_date' },
  'BT-3': { derived: 'invoice type code: always 380 (commercial invoice; no credit notes)' },
  'BT-5': { field: 'invoice.currency' },
  'BT-6': { field: 'invoice.tax_currency' },
  'BT-7': noField('VAT point date'),
  'BT-8': noField('VAT point date code'),
  'BT-9': { field: 'invoice.due_date' },
  'BT-10': { field: 'invoice.buyer_reference' },
  'BT-11': noField('project reference'),
  'BT-12': noField('contract reference'),
  'BT-13': { field: 'invoice.purchase_order' },
  'BT-14': noField('sales order reference'),
  'BT-15': noField('receiving advice reference'),
  'BT-16': noField('despatch advice reference'),
  'BT-17': noField('tender or lot reference'),
  'BT-18': noField('invoiced object identifier'),
  'BT-18-1': noField('invoiced object identifier scheme'),
  'BT-19': noField('buyer accounting reference'),
  'BT-20': { field: 'invoice.footer' },
  'BG-1/BT-21': noField('invoice note subject code'),
  'BG-1/BT-22': { field: 'invoice.notes, account.payment_instructions' },
  'BT-23': noField('business process type (the en16931 profile writes none)'),
  'BT-24': { derived: 'specification identifier: the profile’s (urn:cen.eu:en16931:2017)' },
  'BG-3/BT-25': { field: 'invoice.preceding_invoice.number' },
  'BG-3/BT-26': { field: 'invoice.preceding_invoice.issue_date' },
  'BT-27': { field: 'account.business_name' },
  'BT-28': { field: 'account.trading_name' },
  'BT-29': noField('seller identifier (the export derives one from tax_id or the electronic address when there is no VAT identifier)'),
  'BT-29-1': noField('seller identifier scheme'),
  'BT-30': { field: 'account.registration_id' },
  'BT-30-1': { field: 'account.registration_id_scheme' },
  'BT-31': { field: 'account.tax_id' },
  'BT-32': { field: 'account.tax_id' },
  'BT-33': { field: 'account.legal_info' },
  'BT-34': { field: 'account.electronic_address' },
  'BT-34-1': { field: 'account.electronic_address_scheme' },
  'BT-35': { field: 'account.address.line1' },
  'BT-36': { field: 'account.address.line2' },
  'BT-162': noField('seller address line 3'),
  'BT-37': { field: 'account.address.city' },
  'BT-38': { field: 'account.address.postal_code' },
  'BT-39': { field: 'account.address.state' },
  'BT-40': { field: 'account.address.country' },
  'BT-41': { field: 'account.contact_name' },
  'BT-42': { field: 'account.phone' },
  'BT-43': { field: 'account.email' },
  'BT-44': { field: 'customer.name' },
  'BT-45': noField('buyer trading name'),
  'BT-46': { field: 'customer.identifier' },
  'BT-46-1': { field: 'customer.identifier_scheme' },
  'BT-47': noField('buyer legal registration identifier'),
  'BT-47-1': noField('buyer legal registration identifier scheme'),
  'BT-48': { field: 'customer.tax_id' },
  'BT-49': { field: 'customer.electronic_address' },
  'BT-49-1': { field: 'customer.electronic_address_scheme' },
  'BT-50': { field: 'customer.address.line1' },
  'BT-51': { field: 'customer.address.line2' },
  'BT-163': noField('buyer address line 3'),
  'BT-52': { field: 'customer.address.city' },
  'BT-53': { field: 'customer.address.postal_code' },
  'BT-54': { field: 'customer.address.state' },
  'BT-55': { field: 'customer.address.country' },
  'BT-56': { field: 'customer.contact_name' },
  'BT-57': { field: 'customer.phone' },
  'BT-58': { field: 'customer.email' },
  'BT-59': { field: 'invoice.payee.name' },
  'BT-60': { field: 'invoice.payee.identifier' },
  'BT-60-1': noField('payee identifier scheme'),
  'BT-61': { field: 'invoice.payee.legal_registration_id' },
  'BT-61-1': noField('payee legal registration identifier scheme'),
  'BT-62': { field: 'account.tax_representative.name' },
  'BT-63': { field: 'account.tax_representative.tax_id' },
  'BT-64': { field: 'account.tax_representative.address.line1' },
  'BT-65': { field: 'account.tax_representative.address.line2' },
  'BT-164': noField('tax representative address line 3'),
  'BT-66': { field: 'account.tax_representative.address.city' },
  'BT-67': { field: 'account.tax_representative.address.postal_code' },
  'BT-68': { field: 'account.tax_representative.address.state' },
  'BT-69': { field: 'account.tax_representative.address.country' },
  'BT-70': noField('deliver to party name'),
  'BT-71': noField('deliver to location identifier'),
  'BT-71-1': noField('deliver to location identifier scheme'),
  'BT-72': { field: 'invoice.delivery_date' },
  'BT-73': { field: 'invoice.service_period.start' },
  'BT-74': { field: 'invoice.service_period.end' },
  'BT-75': noField('deliver to address'),
  'BT-76': noField('deliver to address'),
  'BT-165': noField('deliver to address'),
  'BT-77': noField('deliver to address'),
  'BT-78': noField('deliver to address'),
  'BT-79': noField('deliver to address'),
  'BT-80': noField('deliver to address'),
  'BT-81': { field: 'invoice.payment_means.type' },
  'BT-82': { field: 'invoice.payment_means.information' },
  'BT-83': { derived: 'remittance information: the ISO 11649 creditor reference finalization derives from the number' },
  'BG-17/BT-84': { field: 'invoice.payment_means.iban' },
  'BG-17/BT-85': { field: 'invoice.payment_means.account_name' },
  'BG-17/BT-86': { field: 'invoice.payment_means.bic' },
  'BT-87': { field: 'invoice.payment_means.card_last4' },
  'BT-88': { field: 'invoice.payment_means.card_holder' },
  'BT-89': { field: 'invoice.payment_means.mandate_reference' },
  'BT-90': { field: 'invoice.payment_means.creditor_id' },
  'BT-91': { field: 'invoice.payment_means.debited_iban' },
  ...allowanceChargeRules('BG-20', ['BT-92', 'BT-93', 'BT-94', 'BT-95', 'BT-96', 'BT-97', 'BT-98'], 'allowances'),
  ...allowanceChargeRules('BG-21', ['BT-99', 'BT-100', 'BT-101', 'BT-102', 'BT-103', 'BT-104', 'BT-105'], 'charges'),
  'BT-106': { field: 'computed: Σ line amount' },
  'BT-107': { field: 'computed: allowance_total' },
  'BT-108': { field: 'computed: charge_total' },
  'BT-109': { field: 'computed: taxable_amount' },
  'BT-110': { field: 'computed: tax_total' },
  'BT-111': { field: 'computed: round_half_up(tax_total × tax_exchange_rate)' },
  'BT-112': { field: 'computed: total' },
  'BT-113': { field: 'invoice.prepaid_amount' },
  'BT-114': noField('rounding amount'),
  'BT-115': { field: 'computed: total − prepaid_amount' },
  'BG-23/BT-116': { field: 'computed: tax_breakdown.taxable_amount' },
  'BG-23/BT-117': { field: 'computed: tax_breakdown.tax' },
  'BG-23/BT-118': { field: 'computed: tax_breakdown.tax_category' },
  'BG-23/BT-119': { field: 'computed: tax_breakdown.tax_rate' },
  'BG-23/BT-120': { field: 'line.tax_exemption_reason' },
  'BG-23/BT-121': { field: 'line.tax_exemption_reason_code' },
  'BG-24/BT-122': { derived: 'supporting document reference: the export names each attachment itself' },
  'BG-24/BT-123': { field: 'attachment.description' },
  'BG-24/BT-124': noField('external document location (attachments are embedded only)'),
  'BG-24/BT-125': { field: 'attachment.content_base64' },
  'BG-24/BT-125-1': { field: 'attachment.content_type' },
  'BG-24/BT-125-2': { field: 'attachment.filename' },
  'BG-25/BT-126': { derived: 'invoice line identifier: the line’s position, 1, 2, …' },
  'BG-25/BT-127': { field: 'line.note' },
  'BG-25/BT-128': noField('invoice line object identifier'),
  'BG-25/BT-128-1': noField('invoice line object identifier scheme'),
  'BG-25/BT-129': { field: 'line.quantity, line.quantity_decimal' },
  'BG-25/BT-130': { field: 'line.unit_code' },
  'BG-25/BT-131': { field: 'computed: line amount' },
  'BG-25/BT-132': noField('referenced purchase order line reference'),
  'BG-25/BT-133': noField('invoice line buyer accounting reference'),
  'BG-25/BT-134': { field: 'line.period.start' },
  'BG-25/BT-135': { field: 'line.period.end' },
  'BG-25/BG-27/BT-136': { field: 'line.discount.amount_off' },
  'BG-25/BG-27/BT-137': { field: 'computed: line subtotal (the discount base)' },
  'BG-25/BG-27/BT-138': { field: 'line.discount.percent_off' },
  'BG-25/BG-27/BT-139': { field: `computed: "${LINE_DISCOUNT_REASON}"` },
  'BG-25/BG-27/BT-140': { field: `computed: ${LINE_DISCOUNT_REASON_CODE}` },
  'BG-25/BG-28/BT-141': noField('invoice line charge'),
  'BG-25/BG-28/BT-142': noField('invoice line charge'),
  'BG-25/BG-28/BT-143': noField('invoice line charge'),
  'BG-25/BG-28/BT-144': noField('invoice line charge'),
  'BG-25/BG-28/BT-145': noField('invoice line charge'),
  'BG-25/BT-146': { field: 'line.unit_amount, line.unit_amount_decimal' },
  'BG-25/BT-147': noField('item price discount (the net price is sent; a line discount is a line allowance)'),
  'BG-25/BT-148': noField('item gross price'),
  'BG-25/BT-149': { field: 'line.price_base_quantity' },
  'BG-25/BT-150': noField('item price base quantity unit of measure code (the export uses the line’s unit)'),
  'BG-25/BT-151': { field: 'line.tax_category' },
  'BG-25/BT-152': { field: 'line.tax_rate' },
  'BG-25/BT-153': { field: 'line.description' },
  'BG-25/BT-154': noField('item description'),
  'BG-25/BT-155': { field: 'line.sku' },
  'BG-25/BT-156': noField('item buyer’s identifier'),
  'BG-25/BT-157': { field: 'line.standard_id' },
  'BG-25/BT-157-1': { field: 'line.standard_id_scheme' },
  'BG-25/BT-158': noField('item classification identifier'),
  'BG-25/BT-158-1': noField('item classification scheme'),
  'BG-25/BT-158-2': noField('item classification scheme version'),
  'BG-25/BT-159': noField('item country of origin'),
  'BG-25/BG-32/BT-160': noField('item attribute name'),
  'BG-25/BG-32/BT-161': noField('item attribute value'),
};

function allowanceChargeRules(group: string, [amount, base, percent, category, rate, reason, code]: string[], field: string): Record<string, TermRule> {
  return {
    [`${group}/${amount}`]: { field: `invoice.${field}.amount` },
    [`${group}/${base}`]: { field: `invoice.${field}.base_amount` },
    [`${group}/${percent}`]: { field: `invoice.${field}.percent` },
    [`${group}/${category}`]: { field: `invoice.${field}.tax_category` },
    [`${group}/${rate}`]: { field: `invoice.${field}.tax_rate` },
    [`${group}/${reason}`]: { field: `invoice.${field}.reason` },
    [`${group}/${code}`]: { field: `invoice.${field}.reason_code` },
  };
}

/** The rule of a path's term: `BT-29[1]` and `BT-29-1[0]` are BT-29 and BT-29-1. */
export const ruleOf = (path: string): TermRule => {
  const rule = TERM_RULES[termOf(path)];
  if (rule === undefined) throw new Error(`no rule for business term ${path}: add it to TERM_RULES`);
  return rule;
};

// ---------------------------------------------------------------- translation

export interface Translation {
  account: AccountRequest;
  customer: CustomerRequest;
  invoice: InvoiceRequest;
  attachments: AttachmentRequest[];
  /** The example's paths no request states, each with its reason (sorted by path). */
  notExpressible: { path: string; reason: string }[];
  /**
   * Why the example cannot be rebuilt at all: its amounts could not come out as the example
   * states them (a credit line, a line charge, a category outside the API's, a rounding of its
   * own), or the export would refuse the invoice (a seller identified in no way the API keeps).
   * Empty: buildable.
   */
  unbuildable: string[];
  /** The API fields the requests use (`invoice.allowances`, `line.quantity_decimal`, `attachments`, …). */
  fields: string[];
}

interface Context {
  terms: BusinessTerms;
  notExpressible: Map<string, string>;
  unbuildable: string[];
  fields: Set<string>;
  exponent: number;
  /** Set when the example's payment means are one credit-transfer account: sent as the account's payment_account. */
  paymentAccount?: AccountRequest['payment_account'];
  /** Each line's amount by the API's rule, with its VAT group. */
  lineAmounts: { category: string; rate: number; amount: number }[];
}

const get = (context: Context, path: string): string | undefined => context.terms.get(path);
const refuse = (context: Context, path: string, reason: string): void => {
  if (context.terms.has(path)) context.notExpressible.set(path, reason);
};
const use = <T>(context: Context, field: string, value: T | undefined): T | undefined => {
  if (value !== undefined) context.fields.add(field);
  return value;
};
const indexesOf = (terms: BusinessTerms, group: string): number[] =>
  [...new Set([...terms.keys()].flatMap((path) => (path.startsWith(`${group}[`) ? [Number(/^[^[]*\[(\d+)\]/.exec(path)![1])] : [])))].sort((a, b) => a - b);

/** An amount of the example in minor units of the invoice currency, when it is a whole number of them. */
const minor = (context: Context, path: string): number | undefined => {
  const value = get(context, path);
  if (value === undefined) return undefined;
  const shifted = shiftDecimal(value, context.exponent);
  if (!isIntegerDecimal(shifted) || isNegative(shifted)) {
    context.unbuildable.push(`${path} ${value}: amounts are whole, non-negative minor units`);
    return undefined;
  }
  return Number(shifted);
};

const addressOf = (context: Context, [line1, line2, line3, city, postalCode, state, country]: string[]): AddressInput | undefined => {
  const address: AddressInput = {
    line1: get(context, line1!),
    line2: get(context, line2!),
    city: get(context, city!),
    postal_code: get(context, postalCode!),
    state: get(context, state!),
    country: get(context, country!),
  };
  refuse(context, line3!, (TERM_RULES[line3!] as { none: string }).none);
  const present = Object.fromEntries(Object.entries(address).filter(([, value]) => value !== undefined)) as AddressInput;
  return Object.keys(present).length ? present : undefined;
};

/** An identifier scheme the contracts take (ISO 6523 ICD, four digits), else refused. */
const icdScheme = (context: Context, path: string): string | undefined => {
  const scheme = get(context, path);
  if (scheme === undefined || ICD_SCHEME.test(scheme)) return scheme;
  refuse(context, path, `identifier scheme ${scheme}: the API takes ISO 6523 ICD codes of four digits`);
  return undefined;
};

const sellerAccount = (context: Context): AccountRequest => {
  const vat = get(context, 'BT-31');
  const taxRegistration = get(context, 'BT-32');
  // BR-CO-26 wants the seller identified; of its three identifiers the API has tax_id and registration_id.
  if (vat === undefined && taxRegistration === undefined && get(context, 'BT-30') === undefined) {
    context.unbuildable.push('BT-29: the seller is identified by a seller identifier only, which decisions.md names no field for; without a tax_id or registration_id the export fails BR-CO-26');
  }
  if (vat !== undefined && taxRegistration !== undefined) refuse(context, 'BT-32', 'seller tax registration beside a VAT identifier: the account has one tax_id (decisions.md)');
  const account: AccountRequest = {
    business_name: get(context, 'BT-27'),
    trading_name: use(context, 'account.trading_name', get(context, 'BT-28')),
    registration_id: use(context, 'account.registration_id', get(context, 'BT-30')),
    registration_id_scheme: use(context, 'account.registration_id_scheme', icdScheme(context, 'BT-30-1')),
    tax_id: vat ?? taxRegistration,
    legal_info: use(context, 'account.legal_info', get(context, 'BT-33')),
    electronic_address: get(context, 'BT-34'),
    electronic_address_scheme: get(context, 'BT-34-1'),
    address: addressOf(context, ['BT-35', 'BT-36', 'BT-162', 'BT-37', 'BT-38', 'BT-39', 'BT-40']),
    contact_name: get(context, 'BT-41'),
    phone: get(context, 'BT-42'),
    email: get(context, 'BT-43'),
  };
  // The notes after the invoice's own: the export writes payment_instructions as the next note.
  const notes = indexesOf(context.terms, 'BG-1');
  if (notes.length >= 2) account.payment_instructions = get(context, `BG-1[${notes[1]}]/BT-22`);
  for (const index of notes.slice(2)) refuse(context, `BG-1[${index}]/BT-22`, 'a third invoice note: the invoice has notes and the account payment_instructions, one note each');
  if (get(context, 'BT-62') !== undefined) {
    const address = addressOf(context, ['BT-64', 'BT-65', 'BT-164', 'BT-66', 'BT-67', 'BT-68', 'BT-69']);
    if (get(context, 'BT-63') === undefined || address?.country == null) {
      for (const term of ['BT-62', 'BT-63', 'BT-64', 'BT-65', 'BT-66', 'BT-67', 'BT-68', 'BT-69']) refuse(context, term, 'a tax representative without a VAT identifier or country, which the API requires');
    } else account.tax_representative = use(context, 'account.tax_representative', { name: get(context, 'BT-62')!, tax_id: get(context, 'BT-63')!, address: { ...address, country: address.country } });
  }
  return withoutUndefined(account);
};

const buyerCustomer = (context: Context): CustomerRequest =>
  withoutUndefined({
    name: get(context, 'BT-44') ?? '',
    identifier: use(context, 'customer.identifier', get(context, 'BT-46')),
    identifier_scheme: use(context, 'customer.identifier_scheme', icdScheme(context, 'BT-46-1')),
    tax_id: get(context, 'BT-48'),
    electronic_address: get(context, 'BT-49'),
    electronic_address_scheme: get(context, 'BT-49-1'),
    address: addressOf(context, ['BT-50', 'BT-51', 'BT-163', 'BT-52', 'BT-53', 'BT-54', 'BT-55']),
    contact_name: use(context, 'customer.contact_name', get(context, 'BT-56')),
    phone: get(context, 'BT-57'),
    email: get(context, 'BT-58'),
  });

/** A percentage as the API takes it (a number with at most `decimals` decimals), or undefined. */
const percentOf = (value: string | undefined, decimals: number): number | undefined =>
  value !== undefined && !isNegative(value) && decimalPlaces(value) <= decimals ? Number(value) : undefined;

const allowanceOrCharge = (context: Context, prefix: string, [amountTerm, baseTerm, percentTerm, categoryTerm, rateTerm, reasonTerm, codeTerm]: string[]): AllowanceChargeRequest => {
  const amount = minor(context, `${prefix}/${amountTerm}`);
  const base = minor(context, `${prefix}/${baseTerm}`);
  const percent = percentOf(get(context, `${prefix}/${percentTerm}`), 2);
  const category = get(context, `${prefix}/${categoryTerm}`);
  if (category !== undefined && !TAX_CATEGORIES.includes(category)) context.unbuildable.push(`${prefix}/${categoryTerm} ${category}: not one of the API's VAT categories ${TAX_CATEGORIES.join(', ')}`);
  const charge = prefix.startsWith('BG-21');
  let code = get(context, `${prefix}/${codeTerm}`);
  if (code !== undefined && !(charge ? /^[A-Z]{1,3}$/.test(code) : (ALLOWANCE_REASON_CODES as readonly string[]).includes(code))) {
    refuse(context, `${prefix}/${codeTerm}`, charge ? 'a charge reason code that is not UNTDID 7161 letters in uppercase, as the API takes and returns them' : `an allowance reason code outside the UNTDID 5189 codes the API takes (${ALLOWANCE_REASON_CODES.join(', ')})`);
    code = undefined;
  }
  const reason = get(context, `${prefix}/${reasonTerm}`);
  if (reason === undefined && code === undefined) context.unbuildable.push(`${prefix}: neither a reason nor a reason code the API takes, and it requires one`);
  const rate = percentOf(get(context, `${prefix}/${rateTerm}`), 3) ?? (category !== undefined && category !== 'S' ? 0 : undefined);
  if (rate === undefined) context.unbuildable.push(`${prefix}/${rateTerm}: the API requires the VAT rate of an allowance or charge (at most 3 decimals)`);
  const request: AllowanceChargeRequest = { reason, reason_code: code, tax_category: category as AllowanceChargeRequest['tax_category'], tax_rate: rate ?? 0 };
  // The percent form only when the API's rule gives the example's amount from it.
  if (percent !== undefined && base !== undefined && amount !== undefined && Number(divideRounded(multiplyDecimal(String(base), String(percent)), '100')) === amount) {
    return withoutUndefined({ percent, base_amount: base, ...request });
  }
  refuse(context, `${prefix}/${baseTerm}`, 'allowance/charge base amount without a percentage that gives the amount: sent as { amount }');
  refuse(context, `${prefix}/${percentTerm}`, 'allowance/charge percentage whose amount the API would round otherwise: sent as { amount }');
  return withoutUndefined({ amount, ...request });
};

/** The fields each payment means type takes (the contracts refuse the others). */
const TYPE_TERMS: Record<PaymentMeansRequest['type'], string[]> = {
  credit_transfer: ['BG-17'],
  sepa_direct_debit: ['BT-89', 'BT-90', 'BT-91'],
  card: ['BT-87', 'BT-88'],
  paypal: [],
  other: [],
};

const paymentMeans = (context: Context): PaymentMeansRequest[] | undefined => {
  const code = get(context, 'BT-81');
  if (code === undefined) return undefined;
  let type = PAYMENT_MEANS_TYPES[code];
  if (type === undefined) {
    // The accounts still say how to pay: sent as the type that carries them.
    type = get(context, 'BT-89') !== undefined || get(context, 'BT-91') !== undefined ? 'sepa_direct_debit' : indexesOf(context.terms, 'BG-17').length ? 'credit_transfer' : 'other';
    refuse(context, 'BT-81', `payment means code ${code}: the API's types are credit_transfer (58), sepa_direct_debit (59), card (48), paypal (68) and other (1)`);
  }
  // Terms of another type than the one sent: the contracts refuse them on this entry.
  for (const [other, terms] of Object.entries(TYPE_TERMS)) {
    if (other === type) continue;
    for (const term of terms) for (const [path] of context.terms) if (path === term || path.startsWith(`${term}[`)) refuse(context, path, `a ${other} term on ${type} payment means: an invoice's payment means share one type`);
  }
  const information = get(context, 'BT-82');
  if (type === 'sepa_direct_debit') {
    const debited = get(context, 'BT-91');
    const debitedValid = debited !== undefined && Iban.safeParse(debited).success;
    if (debited !== undefined && !debitedValid) refuse(context, 'BT-91', 'the debited account is not an IBAN with valid check digits');
    else if (debited !== undefined && debited !== debited.replace(/\s+/g, '').toUpperCase()) refuse(context, 'BT-91', 'an IBAN written with spaces or lowercase: the API stores and exports it without spaces, uppercase');
    return use(context, 'invoice.payment_means', [withoutUndefined({ type, information, mandate_reference: get(context, 'BT-89'), creditor_id: get(context, 'BT-90'), debited_iban: debitedValid ? debited : undefined })]);
  }
  if (type === 'card') {
    const card = get(context, 'BT-87');
    const last = card !== undefined && /^\d{4,6}$/.test(card) ? card : undefined;
    if (card !== undefined && last === undefined) refuse(context, 'BT-87', 'a card number other than its last 4 to 6 digits: the API keeps card_last4 only');
    return use(context, 'invoice.payment_means', [withoutUndefined({ type, information, card_last4: last, card_holder: get(context, 'BT-88') })]);
  }
  if (type !== 'credit_transfer') return use(context, 'invoice.payment_means', [withoutUndefined({ type, information })]);
  const accounts = indexesOf(context.terms, 'BG-17').flatMap((index) => {
    const iban = get(context, `BG-17[${index}]/BT-84`)!;
    if (!Iban.safeParse(iban).success) {
      for (const term of ['BT-84', 'BT-85', 'BT-86']) refuse(context, `BG-17[${index}]/${term}`, 'a payment account that is not an IBAN with valid check digits');
      return [];
    }
    // The API keeps an IBAN as ISO 13616 prints it electronically: no spaces, uppercase.
    if (iban !== iban.replace(/\s+/g, '').toUpperCase()) refuse(context, `BG-17[${index}]/BT-84`, 'an IBAN written with spaces or lowercase: the API stores and exports it without spaces, uppercase');
    return [{ iban, account_name: get(context, `BG-17[${index}]/BT-85`), bic: get(context, `BG-17[${index}]/BT-86`) }];
  });
  if (accounts.length === 0) {
    // A credit transfer names the account to pay into (BR-61): without one the API can take, no payment means at all.
    for (const term of ['BT-81', 'BT-82']) refuse(context, term, 'credit transfer without an account the API takes (an IBAN): no payment means is sent');
    return undefined;
  }
  // One credit-transfer account and nothing else: the account's payment_account, which the API has had from the start.
  if (accounts.length === 1 && information === undefined) {
    const [account] = accounts as [{ iban: string; account_name?: string; bic?: string }];
    context.paymentAccount = withoutUndefined({ iban: account.iban, bic: account.bic, name: account.account_name });
    return undefined;
  }
  return use(context, 'invoice.payment_means', accounts.map((account, index) => withoutUndefined({ type, ...account, information: index === 0 ? information : undefined })));
};

/**
 * The exchange rate (units of the tax currency per unit of the invoice currency) with the fewest
 * decimals from which the API's rule, round_half_up(tax_total × tax_exchange_rate), gives the
 * example's VAT total in the tax currency (BT-111) from its VAT total (BT-110).
 */
const taxExchangeRate = (context: Context): string | undefined => {
  const documentTax = get(context, 'BT-110');
  const taxCurrencyTax = get(context, 'BT-111');
  if (documentTax === undefined || taxCurrencyTax === undefined || isIntegerDecimal(documentTax) && BigInt(documentTax) === 0n) return undefined;
  const taxExponent = minorUnitExponent(get(context, 'BT-6')!);
  const target = shiftDecimal(taxCurrencyTax, taxExponent);
  const taxMinor = shiftDecimal(documentTax, context.exponent);
  for (let places = 0; places <= 10; places += 1) {
    const rate = shiftDecimal(String(divideRounded(shiftDecimal(taxCurrencyTax, places), documentTax)), -places);
    if (String(divideRounded(multiplyDecimal(taxMinor, shiftDecimal(rate, taxExponent - context.exponent)), '1')) === target) return rate;
  }
  refuse(context, 'BT-111', 'no exchange rate of up to 10 decimals gives the example’s VAT total in the tax currency');
  return undefined;
};

const lineOf = (context: Context, index: number, taxReasons: Map<string, { reason?: string; code?: string; path: string }>): LineRequest => {
  const at = (term: string) => `BG-25[${index}]/${term}`;
  const quantity = get(context, at('BT-129')) ?? '1';
  const price = get(context, at('BT-146')) ?? '0';
  const baseQuantity = get(context, at('BT-149'));
  const category = get(context, at('BT-151')) ?? 'S';
  if (isNegative(quantity) || Number(quantity) === 0) context.unbuildable.push(`${at('BT-129')} ${quantity}: quantities are above 0 (decisions.md: no credit notes or credit lines)`);
  if (isNegative(price)) context.unbuildable.push(`${at('BT-146')} ${price}: prices are not negative`);
  if (decimalPlaces(quantity) > 4) context.unbuildable.push(`${at('BT-129')} ${quantity}: quantity_decimal has up to 4 decimals`);
  if (!TAX_CATEGORIES.includes(category)) context.unbuildable.push(`${at('BT-151')} ${category}: not one of the API's VAT categories`);
  if (indexesOf(context.terms, `BG-25[${index}]/BG-28`).length) context.unbuildable.push(`${at('BG-28')}: a line charge changes the line amount and decisions.md names no line charge`);
  const unitMinor = shiftDecimal(price, context.exponent);
  if (decimalPlaces(unitMinor) > 6) context.unbuildable.push(`${at('BT-146')} ${price}: unit_amount_decimal has up to 6 decimals of the minor unit`);
  if (baseQuantity !== undefined && (decimalPlaces(baseQuantity) > 4 || isNegative(baseQuantity) || Number(baseQuantity) === 0)) context.unbuildable.push(`${at('BT-149')} ${baseQuantity}: price_base_quantity is above 0 with up to 4 decimals`);
  if (get(context, at('BT-150')) !== undefined && get(context, at('BT-150')) !== get(context, at('BT-130'))) refuse(context, at('BT-150'), 'a price base unit other than the line’s: decisions.md names no field');

  const line: LineRequest = {
    description: get(context, at('BT-153')) ?? '',
    ...(isIntegerDecimal(quantity) && Number(quantity) >= 1 ? { quantity: Number(quantity) } : { quantity_decimal: use(context, 'line.quantity_decimal', quantity) }),
    ...(isIntegerDecimal(unitMinor) ? { unit_amount: Number(unitMinor) } : { unit_amount: undefined, unit_amount_decimal: use(context, 'line.unit_amount_decimal', unitMinor) }),
    price_base_quantity: use(context, 'line.price_base_quantity', baseQuantity !== undefined && canonicalOne(baseQuantity) ? undefined : baseQuantity),
    unit_code: get(context, at('BT-130')),
    tax_rate: percentOf(get(context, at('BT-152')), 4) ?? 0,
    tax_category: category as LineRequest['tax_category'],
    note: use(context, 'line.note', get(context, at('BT-127'))),
    sku: use(context, 'line.sku', get(context, at('BT-155'))),
    ...standardIdOf(context, at('BT-157')),
  };
  const start = get(context, at('BT-134'));
  const end = get(context, at('BT-135'));
  if (start !== undefined && end !== undefined) line.period = use(context, 'line.period', { start, end });
  else for (const term of ['BT-134', 'BT-135']) refuse(context, at(term), 'half a line period: the API takes period { start, end } with both days');
  if (EXEMPT_CATEGORIES.includes(category)) {
    const exemption = taxReasons.get(`${category}/${line.tax_rate}`);
    line.tax_exemption_reason = exemption?.reason;
    const code = exemption?.code;
    if (code !== undefined && !VATEX.test(code.toUpperCase())) refuse(context, exemption!.path, `exemption reason code ${code}: the API takes CEF VATEX codes`);
    else if (code !== undefined && code !== code.toUpperCase()) refuse(context, exemption!.path, 'a VATEX code in lowercase: the API returns and exports it uppercase');
    line.tax_exemption_reason_code = use(context, 'line.tax_exemption_reason_code', code !== undefined && VATEX.test(code.toUpperCase()) ? code : undefined);
    if (line.tax_exemption_reason === undefined && line.tax_exemption_reason_code === undefined) context.unbuildable.push(`${at('BT-151')} ${category}: neither an exemption reason nor a VATEX code, and the API requires one`);
  }

  // The line discount: BG-27 as one allowance of ours (reason "Discount", code 95, base = subtotal).
  const allowances = indexesOf(context.terms, `BG-25[${index}]/BG-27`);
  if (allowances.length > 1) {
    for (const allowance of allowances) for (const [path] of context.terms) if (path.startsWith(`${at('BG-27')}[${allowance}]/`)) refuse(context, path, 'a second allowance on one line: the API takes one discount per line');
    context.unbuildable.push(`${at('BG-27')}: ${allowances.length} allowances on one line; the API takes one discount per line`);
  } else if (allowances.length === 1) {
    const prefix = `${at('BG-27')}[${allowances[0]}]`;
    const amount = minor(context, `${prefix}/BT-136`);
    const percent = percentOf(get(context, `${prefix}/BT-138`), 2);
    const subtotal = lineSubtotal(quantity, unitMinor, baseQuantity);
    const base = minor(context, `${prefix}/BT-137`);
    if (base !== undefined && base !== subtotal) refuse(context, `${prefix}/BT-137`, `a discount base other than the line subtotal (${subtotal} minor units), which the export states`);
    if (percent !== undefined && Number(divideRounded(multiplyDecimal(String(subtotal), String(percent)), '100')) === amount) line.discount = { percent_off: percent };
    else {
      line.discount = amount === undefined ? null : { amount_off: amount };
      refuse(context, `${prefix}/BT-138`, 'a discount percentage whose amount the API would round otherwise: sent as amount_off');
    }
    if (get(context, `${prefix}/BT-139`) !== LINE_DISCOUNT_REASON) refuse(context, `${prefix}/BT-139`, `line allowance reason: every line discount says "${LINE_DISCOUNT_REASON}"; decisions.md names no field`);
    if (get(context, `${prefix}/BT-140`) !== LINE_DISCOUNT_REASON_CODE) refuse(context, `${prefix}/BT-140`, `line allowance reason code: every line discount has code ${LINE_DISCOUNT_REASON_CODE}; decisions.md names no field`);
  }
  // The API's line amount must be the example's (BT-131), or every total after it differs.
  const discountAmount = line.discount && 'amount_off' in line.discount ? (line.discount.amount_off ?? 0) : line.discount && 'percent_off' in line.discount ? Number(divideRounded(multiplyDecimal(String(lineSubtotal(quantity, unitMinor, baseQuantity)), String(line.discount.percent_off)), '100')) : 0;
  const amount = lineSubtotal(quantity, unitMinor, baseQuantity) - discountAmount;
  const stated = get(context, at('BT-131'));
  if (stated !== undefined && shiftDecimal(stated, context.exponent) !== String(amount)) {
    context.unbuildable.push(`${at('BT-131')} ${stated}: the API's rule, round_half_up(quantity × unit_amount / price_base_quantity) − discount, gives ${shiftDecimal(String(amount), -context.exponent)}`);
  }
  context.lineAmounts.push({ category, rate: line.tax_rate ?? 0, amount });
  return withoutUndefined(line);
};

/**
 * The API's VAT breakdown from the lines, allowances and charges (decisions.md: per category and
 * rate, round_half_up(Σ amount × rate / 100) once per group) against the example's BG-23.
 */
const checkTaxBreakdown = (context: Context, invoice: InvoiceRequest): void => {
  const groups = new Map<string, { base: number; rate: number }>();
  const add = (category: string, rate: number, amount: number) => {
    const key = `${category}/${rate}`;
    const group = groups.get(key) ?? { base: 0, rate };
    group.base += amount;
    groups.set(key, group);
  };
  for (const line of context.lineAmounts) add(line.category, line.rate, line.amount);
  const amountOf = (entry: AllowanceChargeRequest) => entry.amount ?? Number(divideRounded(multiplyDecimal(String(entry.base_amount ?? 0), String(entry.percent ?? 0)), '100'));
  for (const entry of invoice.allowances ?? []) add(entry.tax_category ?? 'S', entry.tax_rate ?? 0, -amountOf(entry));
  for (const entry of invoice.charges ?? []) add(entry.tax_category ?? 'S', entry.tax_rate ?? 0, amountOf(entry));
  for (const index of indexesOf(context.terms, 'BG-23')) {
    const at = (term: string) => `BG-23[${index}]/${term}`;
    const key = `${get(context, at('BT-118'))}/${percentOf(get(context, at('BT-119')), 4) ?? 0}`;
    const group = groups.get(key);
    const base = group?.base ?? 0;
    const tax = Number(divideRounded(multiplyDecimal(String(base), String(group?.rate ?? 0)), '100'));
    const statedBase = get(context, at('BT-116'));
    const statedTax = get(context, at('BT-117'));
    if (statedBase !== undefined && shiftDecimal(statedBase, context.exponent) !== String(base)) {
      context.unbuildable.push(`${at('BT-116')} ${statedBase}: the lines, allowances and charges of ${key} sum to ${shiftDecimal(String(base), -context.exponent)}`);
    } else if (statedTax !== undefined && shiftDecimal(statedTax, context.exponent) !== String(tax)) {
      context.unbuildable.push(`${at('BT-117')} ${statedTax}: the API's rule, round_half_up(${shiftDecimal(String(base), -context.exponent)} × ${group?.rate ?? 0} / 100), gives ${shiftDecimal(String(tax), -context.exponent)}`);
    }
  }
};

/** BT-157 with its scheme, which the contracts require beside it (ISO 6523 ICD). */
const standardIdOf = (context: Context, path: string): Pick<LineRequest, 'standard_id' | 'standard_id_scheme'> => {
  const id = get(context, path);
  if (id === undefined) return {};
  const scheme = icdScheme(context, `${path}-1`);
  if (scheme === undefined) {
    refuse(context, path, 'a standard item identifier without an ISO 6523 ICD scheme, which the API requires beside it');
    return {};
  }
  return { standard_id: use(context, 'line.standard_id', id), standard_id_scheme: use(context, 'line.standard_id_scheme', scheme) };
};

const canonicalOne = (value: string): boolean => shiftDecimal(value, 0) === '1';

/** The API's line subtotal: round_half_up(quantity × unit_amount / price_base_quantity), in minor units. */
const lineSubtotal = (quantity: string, unitMinor: string, baseQuantity: string | undefined): number =>
  Number(divideRounded(multiplyDecimal(quantity, unitMinor), baseQuantity ?? '1'));

/** The due date, unless it is before the issue date, which the API refuses (decisions.md keeps the specification's rule). */
const dueDateOf = (context: Context): string | undefined => {
  const due = get(context, 'BT-9');
  const issued = get(context, 'BT-2');
  if (due === undefined || issued === undefined || due >= issued) return due;
  refuse(context, 'BT-9', `a due date before the issue date (${issued}): the API refuses it`);
  if (get(context, 'BT-20') === undefined) context.unbuildable.push('BT-9: without the due date the API refuses, and without payment terms (BT-20), the export fails BR-CO-25');
  return undefined;
};

const invoiceOf = (context: Context): InvoiceRequest => {
  const taxReasons = new Map<string, { reason?: string; code?: string; path: string }>();
  for (const index of indexesOf(context.terms, 'BG-23')) {
    const category = get(context, `BG-23[${index}]/BT-118`) ?? '';
    const rate = percentOf(get(context, `BG-23[${index}]/BT-119`), 4) ?? 0;
    taxReasons.set(`${category}/${rate}`, { reason: get(context, `BG-23[${index}]/BT-120`), code: get(context, `BG-23[${index}]/BT-121`), path: `BG-23[${index}]/BT-121` });
  }
  const notes = indexesOf(context.terms, 'BG-1');
  for (const index of notes) refuse(context, `BG-1[${index}]/BT-21`, (TERM_RULES['BG-1/BT-21'] as { none: string }).none);
  const preceding = indexesOf(context.terms, 'BG-3');
  for (const index of preceding.slice(1)) for (const term of ['BT-25', 'BT-26']) refuse(context, `BG-3[${index}]/${term}`, 'a second preceding invoice: decisions.md names one preceding_invoice');
  const start = get(context, 'BT-73');
  const end = get(context, 'BT-74');
  if ((start === undefined) !== (end === undefined)) for (const term of ['BT-73', 'BT-74']) refuse(context, term, 'half an invoicing period: service_period takes { start, end }');
  const taxCurrency = get(context, 'BT-6');
  if (taxCurrency !== undefined && taxCurrency === get(context, 'BT-5')) refuse(context, 'BT-6', 'a tax currency that is the invoice currency: the API takes tax_currency only when it differs');
  if (get(context, 'BT-114') !== undefined) refuse(context, 'BT-115', 'the amount due without the rounding amount (BT-114), which decisions.md does not name');
  const payee = get(context, 'BT-59');
  const invoice: InvoiceRequest = {
    currency: get(context, 'BT-5'),
    issue_date: get(context, 'BT-2'),
    due_date: dueDateOf(context),
    buyer_reference: get(context, 'BT-10'),
    purchase_order: get(context, 'BT-13'),
    delivery_date: get(context, 'BT-72'),
    service_period: use(context, 'invoice.service_period', start !== undefined && end !== undefined ? { start, end } : undefined),
    notes: notes.length ? get(context, `BG-1[${notes[0]}]/BT-22`) : undefined,
    footer: get(context, 'BT-20'),
    preceding_invoice: preceding.length ? use(context, 'invoice.preceding_invoice', withoutUndefined({ number: get(context, `BG-3[${preceding[0]}]/BT-25`)!, issue_date: get(context, `BG-3[${preceding[0]}]/BT-26`) })) : undefined,
    payee: payee === undefined ? undefined : use(context, 'invoice.payee', withoutUndefined({ name: payee, identifier: get(context, 'BT-60'), legal_registration_id: get(context, 'BT-61') })),
    tax_currency: use(context, 'invoice.tax_currency', taxCurrency !== undefined && taxCurrency !== get(context, 'BT-5') ? taxCurrency : undefined),
    prepaid_amount: use(context, 'invoice.prepaid_amount', minor(context, 'BT-113')),
    payment_means: paymentMeans(context),
    allowances: use(context, 'invoice.allowances', listOrUndefined(indexesOf(context.terms, 'BG-20').map((index) => allowanceOrCharge(context, `BG-20[${index}]`, ['BT-92', 'BT-93', 'BT-94', 'BT-95', 'BT-96', 'BT-97', 'BT-98'])))),
    charges: use(context, 'invoice.charges', listOrUndefined(indexesOf(context.terms, 'BG-21').map((index) => allowanceOrCharge(context, `BG-21[${index}]`, ['BT-99', 'BT-100', 'BT-101', 'BT-102', 'BT-103', 'BT-104', 'BT-105'])))),
    items: indexesOf(context.terms, 'BG-25').map((index) => lineOf(context, index, taxReasons)),
  };
  // An allowance or charge changes the base of a VAT group of the lines; the API refuses one whose group has no line.
  for (const [group, list] of [['BG-20', invoice.allowances], ['BG-21', invoice.charges]] as const) {
    (list ?? []).forEach((entry, index) => {
      const category = entry.tax_category ?? (entry.tax_rate > 0 ? 'S' : 'Z');
      if (!context.lineAmounts.some((line) => line.category === category && line.rate === entry.tax_rate)) {
        context.unbuildable.push(`${group}[${index}] ${category} ${entry.tax_rate}: no line in that VAT group, and the API requires one`);
      }
    });
  }
  checkTaxBreakdown(context, invoice);
  if (invoice.tax_currency !== undefined) invoice.tax_exchange_rate = use(context, 'invoice.tax_exchange_rate', taxExchangeRate(context));
  return withoutUndefined(invoice);
};

const attachmentsOf = (context: Context, embedded: ReadonlyMap<number, string>): AttachmentRequest[] =>
  indexesOf(context.terms, 'BG-24').flatMap((index) => {
    const at = (term: string) => `BG-24[${index}]/${term}`;
    const content = embedded.get(index);
    const type = get(context, at('BT-125-1'));
    const filename = get(context, at('BT-125-2'));
    const reason =
      content === undefined ? 'a supporting document that is only referenced (no embedded content): attachments are uploaded documents'
      : type === undefined || !ATTACHMENT_TYPES.includes(type) ? `an attachment of type ${type ?? '(none)'}: the API takes PDF, PNG, JPEG, CSV, XLSX and ODS`
      : filename === undefined ? 'an attachment without a file name, which the API requires'
      : CONTENT_SIGNATURES[type] && !Buffer.from(content, 'base64').subarray(0, CONTENT_SIGNATURES[type].length).equals(CONTENT_SIGNATURES[type]) ? `an attachment whose bytes are not a ${type} file (the API checks the content against its type)`
      : undefined;
    if (reason !== undefined) {
      for (const [path] of context.terms) if (path.startsWith(`BG-24[${index}]/`)) refuse(context, path, reason);
      return [];
    }
    context.fields.add('attachments');
    return [withoutUndefined({ filename: filename!, content_type: type as AttachmentRequest['content_type'], content_base64: content!, description: get(context, at('BT-123')) })];
  });

/**
 * The requests that rebuild an example, and what they cannot say. `embedded` holds the base64
 * content of each embedded document by its BG-24 index (see `embeddedDocuments`).
 */
export const translateExample = (terms: BusinessTerms, embedded: ReadonlyMap<number, string> = new Map()): Translation => {
  const context: Context = { terms, notExpressible: new Map(), unbuildable: [], fields: new Set(), exponent: minorUnitExponent(terms.get('BT-5') ?? 'EUR'), lineAmounts: [] };
  for (const path of terms.keys()) {
    const rule = ruleOf(path);
    if ('none' in rule) context.notExpressible.set(path, rule.none);
  }
  const account = sellerAccount(context);
  const customer = buyerCustomer(context);
  const invoice = invoiceOf(context);
  if (context.paymentAccount) account.payment_account = context.paymentAccount;
  const attachments = attachmentsOf(context, embedded);
  return {
    account,
    customer,
    invoice,
    attachments,
    notExpressible: [...context.notExpressible].sort(([a], [b]) => comparePaths(a, b)).map(([path, reason]) => ({ path, reason })),
    unbuildable: [...new Set(context.unbuildable)],
    fields: [...context.fields].sort(),
  };
};

function listOrUndefined<T>(list: T[]): T[] | undefined {
  return list.length ? list : undefined;
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, entry]) => entry !== undefined)) as T;
}

// ---------------------------------------------------------------- which fields the API has today

const shapeKeys = (schema: { shape?: Record<string, unknown> }): Set<string> => new Set(Object.keys(schema.shape ?? {}));
const ACCOUNT_KEYS = shapeKeys(UpdateAccountBody as never);
const CUSTOMER_KEYS = shapeKeys(CreateCustomerBody as never);
const INVOICE_KEYS = shapeKeys(CreateInvoiceBody as never);
const LINE_KEYS = shapeKeys(InvoiceItemInput as never);
const HAS_ATTACHMENTS = OPERATIONS.some((operation) => operation.method === 'POST' && operation.path === '/api/v1/invoices/:id/attachments');

/** The fields a translation uses that the contracts do not define yet. */
export const fieldsMissingFromContracts = (fields: readonly string[]): string[] =>
  fields.filter((field) => {
    const [owner, key] = field.split('.') as [string, string | undefined];
    if (owner === 'attachments') return !HAS_ATTACHMENTS;
    const keys = { account: ACCOUNT_KEYS, customer: CUSTOMER_KEYS, invoice: INVOICE_KEYS, line: LINE_KEYS }[owner];
    return keys !== undefined && key !== undefined && !keys.has(key);
  });
