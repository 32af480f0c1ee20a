import { canonicalDecimal } from './business-terms.ts';

/**
 * Exact decimal arithmetic on the strings the extractor gives (no binary floating point): a value
 * is a BigInt numerator over 10^scale.
 */
interface Scaled {
  units: bigint;
  scale: number;
}

const parse = (value: string): Scaled => {
  const canonical = canonicalDecimal(value);
  if (!/^-?\d+(\.\d+)?$/.test(canonical)) throw new Error(`not a decimal: ${value}`);
  const [whole, fraction = ''] = canonical.split('.');
  return { units: BigInt(`${whole}${fraction}`.replace(/^(-?)0+(?=\d)/, '$1')), scale: fraction.length };
};

const format = ({ units, scale }: Scaled): string => {
  const negative = units < 0n;
  const digits = (negative ? -units : units).toString().padStart(scale + 1, '0');
  const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
  return canonicalDecimal(`${negative ? '-' : ''}${text}`);
};

/** The number of decimals a value needs. */
export const decimalPlaces = (value: string): number => parse(value).scale;

export const isNegative = (value: string): boolean => parse(value).units < 0n;

/** value × 10^places, exactly: "12.345" shifted by 2 is "1234.5". */
export const shiftDecimal = (value: string, places: number): string => {
  const { units, scale } = parse(value);
  return places >= scale ? format({ units: units * 10n ** BigInt(places - scale), scale: 0 }) : format({ units, scale: scale - places });
};

/** round_half_up(numerator / denominator) of two decimals, to an integer (half away from zero, as the API rounds). */
export const divideRounded = (numerator: string, denominator: string): bigint => {
  const a = parse(numerator);
  const b = parse(denominator);
  // a.units/10^a.scale ÷ b.units/10^b.scale = a.units × 10^b.scale ÷ (b.units × 10^a.scale)
  let top = a.units * 10n ** BigInt(b.scale);
  let bottom = b.units * 10n ** BigInt(a.scale);
  if (bottom < 0n) {
    top = -top;
    bottom = -bottom;
  }
  const negative = top < 0n;
  const magnitude = negative ? -top : top;
  const rounded = (magnitude * 2n + bottom) / (bottom * 2n);
  return negative ? -rounded : rounded;
};

export const multiplyDecimal = (a: string, b: string): string => {
  const x = parse(a);
  const y = parse(b);
  return format({ units: x.units * y.units, scale: x.scale + y.scale });
};

export const addDecimal = (a: string, b: string): string => {
  const x = parse(a);
  const y = parse(b);
  const scale = Math.max(x.scale, y.scale);
  return format({ units: x.units * 10n ** BigInt(scale - x.scale) + y.units * 10n ** BigInt(scale - y.scale), scale });
};

export const isIntegerDecimal = (value: string): boolean => parse(value).scale === 0;
