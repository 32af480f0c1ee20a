// The seller's brand colour on documents and e-mails, and the text colours that keep it readable.

const DEFAULT_BRAND_COLOR = '#1F3A5F';
const HEX_COLOR = /^#[0-9A-Fa-f]{6}$/;

const INK = '#1B1F24';
const WHITE = '#FFFFFF';

/** WCAG 2 relative luminance of a #RRGGBB colour. */
const luminance = (hex: string): number => {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const channel = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
};

/** WCAG 2 contrast ratio of two #RRGGBB colours, 1 to 21. */
export const contrastRatio = (a: string, b: string): number => {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light! + 0.05) / (dark! + 0.05);
};

/** The seller's colour and the text colours that stay readable with it (WCAG AA, 4.5:1), whatever colour they chose. */
export interface BrandColors {
  /** Rules, bars and button backgrounds. */
  brand: string;
  /** Text on a brand-coloured background: white or ink, whichever contrasts more. */
  onBrand: string;
  /** The brand colour as text on white, or ink when it is too light to read. */
  brandText: string;
}

export const brandColorsOf = (chosen: string | null): BrandColors => {
  const brand = chosen && HEX_COLOR.test(chosen) ? chosen.toUpperCase() : DEFAULT_BRAND_COLOR;
  return {
    brand,
    onBrand: contrastRatio(brand, WHITE) >= contrastRatio(brand, INK) ? WHITE : INK,
    brandText: contrastRatio(brand, WHITE) >= 4.5 ? brand : INK,
  };
};
