import { z } from 'zod';
import {
  Address,
  AddressInput,
  dataOf,
  Livemode,
  OPTIONAL_TEXT_RULE,
  optionalElectronicAddress,
  optionalElectronicAddressScheme,
  optionalEmail,
  optionalText,
} from '../common.ts';
import { CurrencyCode } from '../currencies.ts';
import { DEFAULT_LOCALE, Locale } from '../locales.ts';
import { defineOperation } from '../operation.ts';
import { EINVOICE_PROFILES, PaymentAccount, PaymentAccountInput, PdfFormat } from './einvoice-fields.ts';
import { optionalIdentifierScheme, PAYMENT_MEANS_MAX, PaymentMeans, PaymentMeansInput, TaxRepresentative, TaxRepresentativeInput } from './business-terms.ts';
import { AttachmentKind, ATTACHMENT_KINDS, RecipientAddress, REMINDER_DAYS_MAX } from './messages.ts';

export const DEFAULT_NUMBER_FORMAT = 'INV/{YYYY}/{SEQ:4}';
export const DEFAULT_TIMEZONE = 'UTC';
export const DEFAULT_CURRENCY = 'USD';

/** What finalize demands of a draft's e-invoice readiness: nothing, or a valid e-invoice in that profile. */
export const EinvoiceRequired = z
  .enum(['none', ...EINVOICE_PROFILES])
  .describe('`none` (default): finalize whatever the readiness; `en16931` or `xrechnung`: finalize refuses (400 `invalid_request`) a draft that could not become a valid e-invoice in that profile, listing `einvoice.<profile>.missing` as its `errors`.')
  .meta({ id: 'EinvoiceRequired' });
export type EinvoiceRequired = z.infer<typeof EinvoiceRequired>;
export const NUMBER_FORMAT_MAX = 64;
export const SEQUENCE_WIDTH_MAX = 12;

const NUMBER_FORMAT_TOKEN = /\{([^{}]*)\}/g;
const NUMBER_FORMAT_LITERAL = '[^{}"\\\\\\u0000-\\u001f\\u007f]';

/**
 * What is wrong with a number format, or an empty list. Tokens: `{YYYY}`, `{YY}`, `{MM}` and
 * `{SEQ:n}` (exactly once); other characters are literal. An unknown `{...}` token is refused
 * rather than printed, since it is almost always a typo; `{MM}` needs a year beside it, or the
 * same number would come back every year.
 */
export const numberFormatProblems = (format: string): string[] => {
  const problems: string[] = [];
  const tokens = [...format.matchAll(NUMBER_FORMAT_TOKEN)].map((match) => match[1] ?? '');
  const sequences = tokens.filter((token) => /^SEQ:\d+$/.test(token));
  const unknown = tokens.filter((token) => !/^(YYYY|YY|MM|SEQ:\d+)$/.test(token));
  if (sequences.length !== 1) problems.push('must contain the sequence token {SEQ:n} exactly once');
  for (const token of sequences) {
    const width = Number(token.slice(4));
    if (width < 1 || width > SEQUENCE_WIDTH_MAX) problems.push(`{SEQ:n} needs n between 1 and ${SEQUENCE_WIDTH_MAX}`);
  }
  if (unknown.length) problems.push(`unknown token ${unknown.map((t) => `{${t}}`).join(', ')}; use {YYYY}, {YY}, {MM} or {SEQ:n}`);
  if (tokens.includes('MM') && !tokens.includes('YYYY') && !tokens.includes('YY')) {
    problems.push('{MM} needs {YYYY} or {YY} beside it, or numbers would repeat every year');
  }
  if (/[{}]/.test(format.replace(NUMBER_FORMAT_TOKEN, ''))) problems.push('has an unmatched { or }');
  // Numbers are hashed inside the invoice's canonical JSON: they never need escaping there.
  if (/["\\\u0000-\u001f\u007f]/.test(format)) problems.push('may not contain quotes, backslashes or control characters');
  return problems;
};

export const NumberFormat = z
  .string()
  .min(1)
  .max(NUMBER_FORMAT_MAX)
  .superRefine((format, ctx) => {
    for (const message of numberFormatProblems(format)) ctx.addIssue({ code: 'custom', message });
  })
  .meta({
    // The shape as a pattern: literal characters (no quotes, backslashes or control characters),
    // the tokens {YYYY}, {YY}, {MM}, and {SEQ:n} exactly once. That {MM} needs a year beside it
    // stays in the description: a pattern would need lookaheads that generators do not follow.
    pattern: `^(?:${NUMBER_FORMAT_LITERAL}|\\{(?:YYYY|YY|MM)\\})*\\{SEQ:0*(?:[1-9]|1[0-2])\\}(?:${NUMBER_FORMAT_LITERAL}|\\{(?:YYYY|YY|MM)\\})*$`,
    description:
      'Invoice number format. Tokens: `{YYYY}`, `{YY}`, `{MM}` (the period becomes the month) and `{SEQ:n}` (the sequence, zero-padded to at least n digits; required exactly once). Other characters are literal. Without a year or month token the series never restarts.',
    example: DEFAULT_NUMBER_FORMAT,
  });

const isTimeZone = (zone: string): boolean => {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
};

export const TimeZone = z
  .string()
  .min(1)
  .max(64)
  .refine(isTimeZone, 'must be an IANA time zone such as Europe/Berlin or UTC')
  .meta({ description: 'IANA time zone; decides "today", overdue and the numbering period.', example: 'Europe/Berlin' });

const BRAND_COLOR_RULE = 'must be a hex colour such as #1A2B3C';
export const BrandColor = z
  .string()
  .regex(/^#[0-9A-Fa-f]{6}$/, BRAND_COLOR_RULE)
  .transform((colour) => colour.toUpperCase());

// --- E-mail delivery settings (decisions.md, "E-mail delivery"): kept together in one block. ---
export const DEFAULT_EMAIL_ATTACHMENTS: readonly AttachmentKind[] = ['pdf'];
const emailSettingsFields = {
  send_on_finalize: z.boolean().describe('E-mail the invoice to the customer when it is finalized (default false).'),
  email_attachments: z.array(AttachmentKind).describe('What an e-mail attaches when a send names nothing (default `["pdf"]`).'),
  reminder_days: z
    .array(z.int())
    .describe('Days relative to the due date (-30..365; -3 is three days before) on which a reminder goes to the customer while the invoice is open or overdue.'),
  reply_to: z.string().nullable().describe('`Reply-To` of every e-mail; null: none.'),
};
const emailSettingsInput = {
  send_on_finalize: z.boolean().optional(),
  email_attachments: z
    .array(AttachmentKind)
    .max(ATTACHMENT_KINDS.length)
    .refine((kinds) => new Set(kinds).size === kinds.length, 'may not name one attachment twice')
    .meta({ uniqueItems: true })
    .optional(),
  reminder_days: z
    .array(z.int().min(-30).max(365))
    .max(REMINDER_DAYS_MAX)
    .refine((days) => new Set(days).size === days.length, 'may not name one day twice')
    .meta({ uniqueItems: true })
    .optional(),
  reply_to: RecipientAddress.nullable().optional().describe('An email address; null clears it.'),
};
// --- end of the e-mail delivery settings ---

/** The workspace's business profile and invoicing settings; finalization copies what it needs. */
export const Account = z
  .object({
    object: z.literal('account'),
    livemode: Livemode,
    business_name: z.string().nullable(),
    email: z.string().nullable(),
    address: Address,
    tax_id: z.string().nullable().describe('The seller VAT identifier (EN 16931 BT-31), such as DE123456789.'),
    phone: z.string().nullable().describe('Seller contact telephone (BT-42; XRechnung requires it).'),
    contact_name: z.string().nullable().describe('Seller contact point, a person or department (BT-41; XRechnung requires it).'),
    electronic_address: z.string().nullable().describe('Seller electronic address (BT-34); e-invoices use `email` when null.'),
    electronic_address_scheme: z.string().nullable().describe('EAS code of `electronic_address`; null means an email address (`EM`).'),
    payment_account: PaymentAccount.nullable().describe('The account buyers pay into by credit transfer (BG-16/BG-17; XRechnung requires payment instructions): the first `credit_transfer` entry of `payment_means`.'),
    payment_means: z
      .array(PaymentMeans)
      .describe('The ways buyers may pay (BG-16), in order; an invoice without its own takes the entries of the first entry’s type (e-invoices allow one type per invoice).'),
    trading_name: z.string().nullable().describe('Seller trading name (BT-28), when it differs from `business_name`.'),
    registration_id: z.string().nullable().describe('Seller legal registration identifier (BT-30), such as HRB 12345.'),
    registration_id_scheme: z.string().nullable().describe('ISO 6523 ICD scheme of `registration_id`.'),
    legal_info: z.string().nullable().describe('Seller additional legal information (BT-33), such as the register court or share capital.'),
    tax_representative: TaxRepresentative.nullable(),
    pdf_format: PdfFormat.describe('What `GET /invoices/:id/pdf` gives: `standard` (default) or `facturx`.'),
    default_currency: z.string().describe('Currency of new invoices that name none.').meta({ example: 'USD' }),
    timezone: z.string().meta({ example: 'UTC' }),
    number_format: z.string().meta({ example: DEFAULT_NUMBER_FORMAT }),
    payment_instructions: z.string().nullable().describe('Printed on invoices, such as bank details.'),
    brand_color: z.string().nullable().meta({ example: '#1A2B3C' }),
    locale: z.string().describe(`Language and formats of documents for customers without a \`preferred_locale\` (BCP 47; default \`${DEFAULT_LOCALE}\`).`).meta({ example: 'de-DE' }),
    einvoice_required: EinvoiceRequired,
    ...emailSettingsFields,
  })
  .meta({ id: 'Account' });
export type Account = z.infer<typeof Account>;

export const UpdateAccountBody = z
  .strictObject({
    business_name: optionalText(200).optional(),
    email: optionalEmail().optional(),
    address: AddressInput.optional().describe('Merged by key: only the keys sent change.'),
    tax_id: optionalText(50).optional().describe(`The seller VAT identifier (BT-31), with its country prefix such as DE123456789. ${OPTIONAL_TEXT_RULE}`),
    phone: optionalText(50).optional().describe(`Seller contact telephone (BT-42). ${OPTIONAL_TEXT_RULE}`),
    contact_name: optionalText(200).optional().describe(`Seller contact point (BT-41). ${OPTIONAL_TEXT_RULE}`),
    electronic_address: optionalElectronicAddress().optional(),
    electronic_address_scheme: optionalElectronicAddressScheme().optional(),
    payment_account: PaymentAccountInput.nullable()
      .optional()
      .describe('Sets the first `credit_transfer` entry of `payment_means` (added at the front when there is none); null removes that entry. Not together with `payment_means`.'),
    payment_means: z.array(PaymentMeansInput).max(PAYMENT_MEANS_MAX).optional().describe(`Replaces the list (at most ${PAYMENT_MEANS_MAX}); several types allowed here.`),
    trading_name: optionalText(200).optional().describe(`Seller trading name (BT-28). ${OPTIONAL_TEXT_RULE}`),
    registration_id: optionalText(100).optional().describe(`Seller legal registration identifier (BT-30). ${OPTIONAL_TEXT_RULE}`),
    registration_id_scheme: optionalIdentifierScheme().optional().describe(`ISO 6523 ICD scheme of \`registration_id\`, such as \`0088\`; only with a \`registration_id\`. ${OPTIONAL_TEXT_RULE}`),
    legal_info: optionalText(1000).optional().describe(`Seller additional legal information (BT-33). ${OPTIONAL_TEXT_RULE}`),
    tax_representative: TaxRepresentativeInput.nullable().optional(),
    pdf_format: PdfFormat.optional(),
    default_currency: CurrencyCode.optional(),
    timezone: TimeZone.optional(),
    number_format: NumberFormat.optional().describe(
      'Applies to the next finalization. A series is (format, period) and keeps its counter for ever: going back to an earlier format continues where it stopped.',
    ),
    payment_instructions: optionalText(2000).optional(),
    brand_color: optionalText(7, { format: BrandColor, tooLong: BRAND_COLOR_RULE })
      .optional()
      .describe(`A hex colour such as #1A2B3C; returned uppercase. ${OPTIONAL_TEXT_RULE}`),
    locale: Locale.optional(),
    einvoice_required: EinvoiceRequired.optional(),
    ...emailSettingsInput,
  })
  .meta({
    id: 'UpdateAccountBody',
    examples: [
      {
        business_name: 'Seller GmbH',
        tax_id: 'DE123456789',
        email: 'billing@seller.example',
        phone: '+49 221 1234567',
        contact_name: 'Accounts receivable',
        payment_account: { iban: 'DE89 3704 0044 0532 0130 00', bic: 'COBADEFFXXX', name: 'Seller GmbH' },
        pdf_format: 'facturx',
      },
    ],
  });
export type UpdateAccountBody = z.infer<typeof UpdateAccountBody>;

const tag = 'Account';
const service = 'billing';

export const retrieveAccount = defineOperation({
  operationId: 'retrieveAccount',
  summary: "Retrieve the workspace's business profile and settings",
  tag, service, method: 'GET', path: '/api/v1/account', scope: 'account:read', idempotency: 'none',
  responses: { 200: { description: 'The account; defaults until first updated.', schema: dataOf(Account) } },
});

export const updateAccount = defineOperation({
  operationId: 'updateAccount',
  summary: "Update the workspace's business profile and settings",
  description:
    'Omitted fields keep their values; `address` merges by key; `payment_means` and `tax_representative` are replaced whole (null removes the representative); `payment_account` sets the first `credit_transfer` entry of `payment_means` (null removes that entry), and may not be sent with `payment_means` (400). `registration_id_scheme` needs a `registration_id` (400 on `registration_id_scheme`). Finalized invoices keep the snapshot they took. `electronic_address` must be an email address unless `electronic_address_scheme` names another scheme (checked on the result, so either may be sent alone): 400 on `electronic_address` otherwise.',
  tag, service, method: 'PATCH', path: '/api/v1/account', scope: 'account:write', idempotency: 'optional',
  body: UpdateAccountBody,
  responses: { 200: { description: 'The updated account.', schema: dataOf(Account) } },
});

export const accountOperations = [retrieveAccount, updateAccount];
