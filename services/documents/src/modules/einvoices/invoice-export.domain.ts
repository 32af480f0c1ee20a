import type { EinvoiceSyntax } from '@invoicing/contracts';
import type { EInvoiceProfile } from './einvoice.domain.ts';
import type { ExportKind } from './invoice-export.entity.ts';

/**
 * Version of the writers: recorded on each stored export like a PDF's template version. Stored
 * exports are never rewritten; a change of output goes with a new version.
 */
export const GENERATOR_VERSION = 'en16931-3';

export const xmlKindOf = (syntax: EinvoiceSyntax, profile: EInvoiceProfile): ExportKind => `${syntax}-${profile}`;

/** The profile whose rules a kind of export follows (Factur-X: EN 16931). */
export const profileOfKind = (kind: ExportKind): EInvoiceProfile => (kind.endsWith('xrechnung') ? 'xrechnung' : 'en16931');

/** The file name's ending: `ubl.xml`, `xrechnung.cii.xml`, `pdf` for Factur-X. */
export const extensionOfKind = (kind: ExportKind): string => {
  if (kind === 'facturx') return 'pdf';
  const [syntax, profile] = kind.split('-');
  return profile === 'xrechnung' ? `xrechnung.${syntax}.xml` : `${syntax}.xml`;
};
