import { readFileSync } from 'node:fs';
import Handlebars from 'handlebars';
import { fontFacesFor } from './fonts.ts';
import type { InvoiceDocumentView } from './invoice-view.domain.ts';

/**
 * The template version new documents are rendered with. A stored PDF records the version that
 * made it; a change to the printed layout goes into a new `templates/v<n>/` folder, so that a
 * re-render of an old invoice with its own version still gives the same bytes.
 */
export const TEMPLATE_VERSION = 'v1';

export interface PublicPageStatus {
  code: string;
  label: string;
  detail: string;
  amountLabel: string;
  amount: string;
}

export interface PublicPageInput {
  view: InvoiceDocumentView;
  status: PublicPageStatus;
  pdfUrl: string;
  fileName: string;
  /** Null when the PDF could not be printed (no Chromium): the page still shows the invoice. */
  pdfSha256: string | null;
  /** Per response: the page's Content-Security-Policy admits only the style element that carries it. */
  nonce: string;
}

export interface InvoiceTemplates {
  version: string;
  /** The HTML Chromium prints to PDF. */
  pdfHtml: (view: InvoiceDocumentView) => string;
  publicPage: (input: PublicPageInput) => string;
}

const templatesDirectory = (version: string) => new URL(`../../../templates/${version}/`, import.meta.url);

// `{{…}}` escapes everything a customer typed; only our own CSS and font rules go in raw (`{{{…}}}`).
const COMPILE_OPTIONS = { strict: true, knownHelpersOnly: true } as const;

/** Compiles one version's templates in a Handlebars environment of their own. */
export const loadTemplates = (version: string = TEMPLATE_VERSION): InvoiceTemplates => {
  const directory = templatesDirectory(version);
  const read = (name: string) => readFileSync(new URL(name, directory), 'utf8');
  const handlebars = Handlebars.create();
  handlebars.registerPartial('invoice', handlebars.compile(read('invoice.hbs'), COMPILE_OPTIONS));
  const pdf = handlebars.compile(read('pdf.hbs'), COMPILE_OPTIONS);
  const page = handlebars.compile(read('public-page.hbs'), COMPILE_OPTIONS);
  const invoiceCss = read('invoice.css');
  const pageCss = `${invoiceCss}\n${read('public-page.css')}`;
  const fontFaces = (view: InvoiceDocumentView) => fontFacesFor(JSON.stringify(view));
  return {
    version,
    pdfHtml: (view) => pdf({ view, css: invoiceCss, fontFaces: fontFaces(view) }),
    publicPage: (input) => page({ ...input, css: pageCss, fontFaces: fontFaces(input.view) }),
  };
};
