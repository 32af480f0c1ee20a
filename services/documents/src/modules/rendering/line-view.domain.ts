import type { InvoiceLine } from '@invoicing/contracts';
import type { MeasureUnit } from '@invoicing/i18n';
import { nonBlank, periodText, type Writer } from './view-writer.domain.ts';

// The invoice's lines as the table prints them: quantity with its unit, every decimal of the
// unit price, the discount, the VAT rate and the amount.

export interface LineView {
  description: string;
  period: string | null;
  /** The seller's item number (BT-155), under the description. */
  sku: string | null;
  /** The line's note (BT-127), under the description. */
  note: string | null;
  /** As given, with its unit where it has a name (`7.5 hours`). */
  quantity: string;
  /** Every decimal of the price (`€0.00125`). */
  unitPrice: string;
  /** "per 100" when the unit price is the price of another quantity than one (BT-149). */
  priceBase: string | null;
  discount: string | null;
  taxRate: string;
  amount: string;
}

/** UN/ECE Recommendation 20 units a reader knows by name; the others (`C62` one, `H87` piece, …) print as the bare number. */
const UNIT_NAMES: Readonly<Record<string, MeasureUnit>> = {
  SEC: 'second',
  MIN: 'minute',
  HUR: 'hour',
  DAY: 'day',
  WEE: 'week',
  MON: 'month',
  ANN: 'year',
  GRM: 'gram',
  KGM: 'kilogram',
  MMT: 'millimeter',
  CMT: 'centimeter',
  MTR: 'meter',
  KMT: 'kilometer',
  MLT: 'milliliter',
  LTR: 'liter',
  HAR: 'hectare',
  '4L': 'megabyte',
  E34: 'gigabyte',
  E35: 'terabyte',
};

/** A decimal string without the zeros that change nothing: `"1.000"` → `"1"`. */
const canonicalDecimal = (value: string): string => (value.includes('.') ? value.replace(/\.?0+$/, '') : value);

const quantityOf = (line: InvoiceLine, { formats }: Writer): string => {
  const unit = UNIT_NAMES[line.unit_code];
  return unit ? formats.measure(line.quantity_decimal, unit) : formats.decimal(line.quantity_decimal);
};

const discountOf = (line: InvoiceLine, { formats, money }: Writer): string | null => {
  if (line.discount_amount === 0) return null;
  const amount = money(-line.discount_amount);
  return line.discount && 'percent_off' in line.discount ? `${amount} (${formats.percent(line.discount.percent_off)})` : amount;
};

export const lineViewOf = (line: InvoiceLine, currency: string, writer: Writer): LineView => {
  const { t, formats, money } = writer;
  const base = canonicalDecimal(line.price_base_quantity);
  const sku = nonBlank(line.sku);
  return {
    description: line.description,
    period: line.period ? t('line_period', { period: periodText(line.period, writer) }) : null,
    sku: sku ? t('line_sku', { sku }) : null,
    note: nonBlank(line.note),
    quantity: quantityOf(line, writer),
    unitPrice: formats.unitPrice(line.unit_amount_decimal, currency),
    priceBase: base === '1' ? null : t('per_base_quantity', { quantity: formats.decimal(base) }),
    discount: discountOf(line, writer),
    taxRate: formats.percent(line.tax_rate),
    amount: money(line.amount),
  };
};
