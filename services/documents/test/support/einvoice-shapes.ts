import type { Address } from '@invoicing/contracts';
import { CURRENCY_CASES } from './currency-cases.ts';
import type { LineInput } from './invoices.ts';

export interface EinvoiceCustomer {
  name: string;
  email: string;
  tax_id: string | null;
  address: Address;
}

/**
 * Invoices of every shape an e-invoice must carry, each valid for every syntax and profile: the
 * service tests write them from a snapshot, the end-to-end tests through billing and the gateway,
 * and the official validator judges both.
 */
export interface EinvoiceShape {
  name: string;
  currency: string;
  lines: LineInput[];
  customer: EinvoiceCustomer;
}

const GERMAN_CUSTOMER: EinvoiceCustomer = {
  name: 'Müller & Söhne GmbH',
  email: 'ap@mueller.example',
  tax_id: 'DE987654321',
  address: { line1: 'Domplatz 5', line2: '3. OG', city: 'Düsseldorf', state: null, postal_code: '40213', country: 'DE' },
};

const LONG_DESCRIPTION = `Entwicklung und Betrieb der Rechnungsplattform – ${'Wartung, Überwachung & Support rund um die Uhr; '.repeat(8)}`.slice(0, 480);

export const EINVOICE_SHAPES: EinvoiceShape[] = [
  { name: 'one VAT rate, quantities above 1', currency: 'EUR', customer: GERMAN_CUSTOMER, lines: [{ description: 'Consulting hours', quantity: 12, unit_amount: 9_500, tax_rate: 19 }] },
  {
    name: 'several VAT rates with percent and amount discounts',
    currency: 'EUR',
    customer: GERMAN_CUSTOMER,
    lines: [
      { description: 'Design workshop', quantity: 2, unit_amount: 45_000, tax_rate: 19, discount: { percent_off: 12.5 } },
      { description: 'Printed brochures', quantity: 300, unit_amount: 125, tax_rate: 7 },
      { description: 'Second brochure run', quantity: 3, unit_amount: 333, tax_rate: 7, discount: { percent_off: 3.33 } },
      { description: 'Shipping', unit_amount: 8_990, tax_rate: 0, discount: { amount_off: 990 } },
    ],
  },
  {
    name: 'exempt (E) beside standard rated',
    currency: 'EUR',
    customer: GERMAN_CUSTOMER,
    lines: [
      { description: 'Course materials', quantity: 4, unit_amount: 2_500, tax_rate: 19 },
      { description: 'Vocational training course', quantity: 1, unit_amount: 120_000, tax_rate: 0, tax_category: 'E', tax_exemption_reason: 'Exempt under § 4 Nr. 21 UStG' },
    ],
  },
  {
    name: 'reverse charge (AE)',
    currency: 'EUR',
    customer: GERMAN_CUSTOMER,
    lines: [{ description: 'Construction work', quantity: 5, unit_amount: 64_000, tax_rate: 0, tax_category: 'AE', tax_exemption_reason: 'Reverse charge: the recipient owes the VAT (§ 13b UStG)' }],
  },
  {
    name: 'intra-community supply (K)',
    currency: 'EUR',
    customer: { name: 'Dupont et Fils SARL', email: 'compta@dupont.example', tax_id: 'FR12345678901', address: { line1: '12 rue de la Paix', line2: null, city: 'Paris', state: null, postal_code: '75002', country: 'FR' } },
    lines: [{ description: 'Machine parts', quantity: 40, unit_amount: 1_875, tax_rate: 0, tax_category: 'K', tax_exemption_reason: 'Intra-community supply, Art. 138 Directive 2006/112/EC' }],
  },
  {
    name: 'export outside the EU (G)',
    currency: 'EUR',
    customer: { name: 'Alpenblick AG', email: 'kreditoren@alpenblick.example', tax_id: 'CHE-123.456.789', address: { line1: 'Bahnhofstrasse 1', line2: null, city: 'Zürich', state: null, postal_code: '8001', country: 'CH' } },
    lines: [{ description: 'Export goods', quantity: 2, unit_amount: 99_900, tax_rate: 0, tax_category: 'G', tax_exemption_reason: 'Export outside the EU' }],
  },
  {
    name: 'not subject to VAT (O)',
    currency: 'EUR',
    customer: GERMAN_CUSTOMER,
    lines: [
      { description: 'Membership fee', unit_amount: 12_000, tax_rate: 0, tax_category: 'O', tax_exemption_reason: 'Not subject to VAT' },
      { description: 'Donation receipt handling', quantity: 2, unit_amount: 1_500, tax_rate: 0, tax_category: 'O', tax_exemption_reason: 'Not subject to VAT' },
    ],
  },
  { name: 'JPY (no minor unit)', currency: 'JPY', customer: GERMAN_CUSTOMER, lines: CURRENCY_CASES.find((c) => c.currency === 'JPY')!.lines },
  {
    name: 'KWD (three decimals)',
    currency: 'KWD',
    customer: GERMAN_CUSTOMER,
    lines: [
      { description: 'Hosting, annual', quantity: 2, unit_amount: 12_500, tax_rate: 10, discount: { percent_off: 10 } },
      { description: 'Setup', quantity: 3, unit_amount: 4_000, tax_rate: 10, discount: { amount_off: 500 } },
    ],
  },
  {
    name: 'long texts and non-Latin names',
    currency: 'EUR',
    customer: {
      name: '株式会社山田商事 — Ελληνική Εταιρεία — شركة الخليج',
      email: 'keiri@yamada.example',
      tax_id: 'DE811234567',
      address: { line1: 'Königsallee 92 <Gebäude "A" & B>', line2: '丸の内ビル 12階', city: 'Düsseldorf', state: null, postal_code: '40212', country: 'DE' },
    },
    lines: [
      { description: LONG_DESCRIPTION, quantity: 3, unit_amount: 33_333, tax_rate: 19 },
      { description: 'Υπηρεσίες μετάφρασης / ترجمة / 翻訳サービス', quantity: 7, unit_amount: 1_111, tax_rate: 7, discount: { percent_off: 7.5 } },
    ],
  },
];

/** Every syntax and profile of the API, and the Factur-X PDF. */
export const EXPORT_VARIANTS = [
  { syntax: 'ubl', profile: 'en16931' },
  { syntax: 'cii', profile: 'en16931' },
  { syntax: 'ubl', profile: 'xrechnung' },
  { syntax: 'cii', profile: 'xrechnung' },
] as const;
