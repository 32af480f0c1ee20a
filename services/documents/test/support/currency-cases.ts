import type { LineInput } from './invoices.ts';

/**
 * Invoices in a two-, zero- and three-decimal currency, each with discounts (percent and amount)
 * and several tax rates, and the rows a reader must find in their PDF: the service tests print
 * them from a snapshot, the end-to-end tests through billing and the gateway.
 */
export const CURRENCY_CASES: { currency: string; lines: LineInput[]; expected: string[] }[] = [
  {
    currency: 'USD',
    lines: [
      { description: 'Strategy workshop', quantity: 2, unit_amount: 150_000, tax_rate: 19, discount: { percent_off: 12.5 } },
      { description: 'Travel expenses (flat)', quantity: 1, unit_amount: 42_500, tax_rate: 7, discount: { amount_off: 2_500 } },
      { description: 'Licence, 12 months', quantity: 3, unit_amount: 9_900, tax_rate: 8.5 },
    ],
    expected: [
      'Strategy workshop 2 US$1,500.00 -US$375.00 (12.5%) 19% US$2,625.00',
      'Travel expenses (flat) 1 US$425.00 -US$25.00 7% US$400.00',
      'Licence, 12 months 3 US$99.00 – 8.5% US$297.00',
      'Subtotal US$3,722.00',
      'Line discounts -US$400.00',
      'Net amount US$3,322.00',
      'Taxable 7% US$400.00 US$28.00',
      'Taxable 8.5% US$297.00 US$25.25',
      'Taxable 19% US$2,625.00 US$498.75',
      'Total VAT US$552.00',
      'Total (USD) US$3,874.00',
    ],
  },
  {
    currency: 'JPY',
    lines: [
      { description: 'Consulting day', quantity: 3, unit_amount: 80_000, tax_rate: 10, discount: { percent_off: 5 } },
      { description: 'Reduced-rate catering', quantity: 7, unit_amount: 1_234, tax_rate: 8 },
    ],
    expected: [
      'Consulting day 3 JP¥80,000 -JP¥12,000 (5%) 10% JP¥228,000',
      'Reduced-rate catering 7 JP¥1,234 – 8% JP¥8,638',
      'Subtotal JP¥248,638',
      'Line discounts -JP¥12,000',
      'Taxable 8% JP¥8,638 JP¥691',
      'Taxable 10% JP¥228,000 JP¥22,800',
      'Total VAT JP¥23,491',
      'Total (JPY) JP¥260,129',
    ],
  },
  {
    currency: 'KWD',
    lines: [
      { description: 'Maintenance contract', quantity: 1, unit_amount: 1_250_750, tax_rate: 5, discount: { amount_off: 750 } },
      { description: 'Spare parts', quantity: 4, unit_amount: 12_345, tax_rate: 0 },
    ],
    expected: [
      'Maintenance contract 1 KWD 1,250.750 -KWD 0.750 5% KWD 1,250.000',
      'Spare parts 4 KWD 12.345 – 0% KWD 49.380',
      'Subtotal KWD 1,300.130',
      'Line discounts -KWD 0.750',
      'Zero rated 0% KWD 49.380 KWD 0.000',
      'Taxable 5% KWD 1,250.000 KWD 62.500',
      'Total (KWD) KWD 1,361.880',
    ],
  },
];

/** What every PDF of the shared business and customer (`makeInvoice`'s, and the e2e workspace's) shows besides its lines. */
export const PARTY_ROWS = [
  'Acme Design Studio', 'Hauptstraße 1', '50667 Köln', 'Germany', 'VAT ID DE123456789',
  'Müller & Söhne GmbH', 'Domplatz 5', '3. OG', '40213 Düsseldorf', 'VAT ID DE987654321',
  'IBAN DE89 3704 0044 0532 0130 00', 'BIC COBADEFFXXX', 'Thank you for your order.', 'Payable within 30 days without deduction.',
];
