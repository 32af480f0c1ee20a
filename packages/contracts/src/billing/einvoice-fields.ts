import { z } from 'zod';
import { OPTIONAL_TEXT_RULE, optionalText } from '../common.ts';

/**
 * The fields EN 16931 e-invoices need beyond a plain invoice (decisions.md, "E-invoices"): the
 * seller's payment account, a line's unit and VAT category. Pure rules, shared by the request
 * schemas, billing (catalog lines take their rate from a price) and the documents' exports.
 */

// IBAN (ISO 13616): country, two check digits, up to 30 characters; valid when mod 97 of the
// rearranged digits is 1. Spaces are allowed on input (as printed) and dropped.
const IBAN_RULE = 'must be an IBAN such as DE89 3704 0044 0532 0130 00 (country code, check digits that pass the mod-97 check)';
const IBAN_SHAPE = /^[A-Z]{2}\d{2}[A-Z0-9]{11,30}$/;
// The shape and the check digits in one check, so a malformed IBAN is reported once.
const isIbanChecksumValid = (iban: string): boolean => {
  if (!IBAN_SHAPE.test(iban)) return false;
  const digits = `${iban.slice(4)}${iban.slice(0, 4)}`.replace(/[A-Z]/g, (letter) => String(letter.charCodeAt(0) - 55));
  return BigInt(digits) % 97n === 1n;
};
export const Iban = z
  .string()
  .transform((iban) => iban.replace(/\s+/g, '').toUpperCase())
  .pipe(z.string().refine(isIbanChecksumValid, IBAN_RULE));
/** The IBAN's shape as the document states it (spaces anywhere); its check digits stay in words: no pattern can compute mod 97. */
export const IBAN_PATTERN = '^\\s*[A-Za-z]{2}\\s*[0-9]{2}(?:\\s*[A-Za-z0-9]){11,30}\\s*$';

// BIC (ISO 9362): bank (4 letters), country (2 letters), location (2), optional branch (3).
const BIC_RULE = 'must be a BIC of 8 or 11 characters such as COBADEFFXXX';
export const Bic = z
  .string()
  .transform((bic) => bic.replace(/\s+/g, '').toUpperCase())
  .pipe(z.string().regex(/^[A-Z]{4}[A-Z]{2}[A-Z0-9]{2}([A-Z0-9]{3})?$/, BIC_RULE))
  // The same rule on the input, spaces allowed anywhere, for the document.
  .meta({ pattern: '^\\s*(?:[A-Za-z]\\s*){6}(?:[A-Za-z0-9]\\s*){2}(?:(?:[A-Za-z0-9]\\s*){3})?$', example: 'COBADEFFXXX' });

/** The payment means every e-invoice names for a payment account: credit transfer (UNTDID 4461 code 58, SEPA). */
export const PAYMENT_MEANS_CODE = '58';

export const PaymentAccount = z
  .object({
    iban: z.string().describe('Spaces removed, uppercase (BT-84).').meta({ example: 'DE89370400440532013000' }),
    bic: z.string().nullable().describe('BT-86.').meta({ example: 'COBADEFFXXX' }),
    name: z.string().nullable().describe('Account holder (BT-85).'),
  })
  .describe(`The account the buyer pays into by credit transfer (payment means code ${PAYMENT_MEANS_CODE}).`)
  .meta({ id: 'PaymentAccount' });
export type PaymentAccount = z.infer<typeof PaymentAccount>;

export const PaymentAccountInput = z
  .strictObject({
    iban: z
      .string()
      .max(42)
      .pipe(Iban)
      .describe('Required. Spaces allowed; stored without them, uppercase. Checked with its mod-97 check digits.')
      .meta({ pattern: IBAN_PATTERN, example: 'DE89 3704 0044 0532 0130 00' }),
    bic: optionalText(11, { format: Bic, tooLong: BIC_RULE }).optional().describe(`8 or 11 characters, any case. ${OPTIONAL_TEXT_RULE}`),
    name: optionalText(200).optional().describe(`Account holder. ${OPTIONAL_TEXT_RULE}`),
  })
  .describe('Replaces the whole payment account; null removes it.')
  .meta({ id: 'PaymentAccountInput', examples: [{ iban: 'DE89 3704 0044 0532 0130 00', bic: 'COBADEFFXXX', name: 'Seller GmbH' }] });
export type PaymentAccountInput = z.infer<typeof PaymentAccountInput>;

export const PDF_FORMATS = ['standard', 'facturx'] as const;
export const PdfFormat = z.enum(PDF_FORMATS).meta({ id: 'PdfFormat', description: '`standard` (default): a plain PDF; `facturx`: a Factur-X PDF (EN 16931 profile) with its XML inside.' });
export type PdfFormat = z.infer<typeof PdfFormat>;

/** UN/ECE Recommendation 20 (and 21, with its X prefix) unit codes: `C62` one, `HUR` hour, `DAY`, `KGM`, `XPP`. */
export const DEFAULT_UNIT_CODE = 'C62';
const UNIT_CODE_RULE = 'must be a UN/ECE Recommendation 20 unit code of 2 or 3 letters or digits, such as C62 (one), HUR (hour) or KGM (kilogram)';
export const UnitCode = z
  .string()
  .regex(/^[A-Za-z0-9]{2,3}$/, UNIT_CODE_RULE)
  .transform((code) => code.toUpperCase())
  .meta({ example: 'HUR' });

/**
 * VAT category codes (UNTDID 5305, as EN 16931 uses them): `S` standard rate, `Z` zero rated,
 * `E` exempt, `AE` reverse charge, `K` intra-community supply, `G` export outside the EU,
 * `O` not subject to VAT.
 */
export const TAX_CATEGORIES = ['S', 'Z', 'E', 'AE', 'K', 'G', 'O'] as const;
export const TaxCategory = z.enum(TAX_CATEGORIES).meta({ id: 'TaxCategory' });
export type TaxCategory = z.infer<typeof TaxCategory>;

/** The categories that state why no (or no normal) VAT is charged: each line of them needs `tax_exemption_reason`. */
export const EXEMPT_TAX_CATEGORIES: readonly TaxCategory[] = ['E', 'AE', 'K', 'G', 'O'];
/** The categories whose lines charge no VAT at all: rate 0. */
const ZERO_RATE_TAX_CATEGORIES: readonly TaxCategory[] = ['Z', 'AE', 'K', 'G', 'O'];

export const TAX_EXEMPTION_REASON_MAX = 500;

/** The category of a line that names none: `S` when it charges tax, else `Z`. */
export const defaultTaxCategory = (taxRate: number): TaxCategory => (taxRate > 0 ? 'S' : 'Z');

export interface TaxCategoryIssue {
  field: 'tax_category' | 'tax_exemption_reason';
  message: string;
}

/**
 * What is wrong with a line's category, rate and exemption reason (decisions.md; EN 16931 BR-S-05,
 * BR-Z-05, BR-AE-05, BR-IC-05, BR-G-05, BR-O-05 for the rates, BR-E-10 … BR-O-10 for the reason,
 * BR-S-10 and BR-Z-10 refusing one): an empty list when they fit together.
 */
export const taxCategoryIssues = (line: { taxCategory: TaxCategory; taxRate: number; taxExemptionReason: string | null }): TaxCategoryIssue[] => {
  const issues: TaxCategoryIssue[] = [];
  const { taxCategory: category, taxRate: rate } = line;
  if (category === 'S' && !(rate > 0)) issues.push({ field: 'tax_category', message: 'S (standard rate) needs a tax_rate above 0; use Z, E or another category for a rate of 0' });
  if (ZERO_RATE_TAX_CATEGORIES.includes(category) && rate !== 0) issues.push({ field: 'tax_category', message: `${category} needs a tax_rate of 0, not ${rate}` });
  if (EXEMPT_TAX_CATEGORIES.includes(category) && line.taxExemptionReason == null) {
    issues.push({ field: 'tax_exemption_reason', message: `is required for tax_category ${category}: say why no VAT is charged, such as "Reverse charge"` });
  }
  if (!EXEMPT_TAX_CATEGORIES.includes(category) && line.taxExemptionReason != null) {
    issues.push({ field: 'tax_exemption_reason', message: `is only for tax_category E, AE, K, G or O, not ${category}` });
  }
  return issues;
};

/** The e-invoice profiles the API exports (decisions.md: `profile=en16931|xrechnung`). */
export const EINVOICE_PROFILES = ['en16931', 'xrechnung'] as const;
export type EinvoiceProfile = (typeof EINVOICE_PROFILES)[number];

export const MissingEinvoiceField = z
  .object({
    path: z.string().describe('The invoice field that lacks a value or breaks the rule, as the invoice response names it.').meta({ example: 'buyer_reference' }),
    rule: z.string().describe('The EN 16931 or XRechnung rule (or business term) it comes from.').meta({ example: 'BR-DE-15' }),
    message: z.string().describe('What is missing and where to set it, naming the rule.'),
  })
  .meta({ id: 'MissingEinvoiceField' });
export type MissingEinvoiceField = z.infer<typeof MissingEinvoiceField>;

export const ProfileReadiness = z
  .object({
    ready: z.boolean().describe('True when `missing` is empty: the export in this profile gives a valid document.'),
    missing: z.array(MissingEinvoiceField),
  })
  .meta({ id: 'ProfileReadiness' });
export type ProfileReadiness = z.infer<typeof ProfileReadiness>;

export const EinvoiceReadiness = z
  .object({
    en16931: ProfileReadiness.describe('EN 16931 core (UBL, CII, Factur-X EN 16931).'),
    xrechnung: ProfileReadiness.describe('XRechnung 3 (the German CIUS): EN 16931 plus the BR-DE rules.'),
  })
  .meta({ id: 'EinvoiceReadiness' });
export type EinvoiceReadiness = z.infer<typeof EinvoiceReadiness>;
