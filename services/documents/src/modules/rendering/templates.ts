import { readFileSync } from 'node:fs';
import Handlebars from 'handlebars';
import { fontFacesFor } from './fonts.ts';
import type { InvoiceDocumentView } from './invoice-view.domain.ts';
import type { PrintJob } from './pdf-renderer.ts';

/**
 * The template version new documents are rendered with. A stored PDF records the version that
 * made it, and is kept as it was printed; a change to the printed layout goes into a new
 * `templates/v<n>/` folder (v4: the payment section's grid, hyphens at the typeface's width and
 * the exemption reasons kept on one page, after v3 had been released), so the version names the
 * layout a stored PDF has.
 */
export const TEMPLATE_VERSION = 'v4';

export interface PublicPageStatus {
  code: string;
  label: string;
  detail: string;
  amountLabel: string;
  amount: string;
}

export interface PublicPageInput {
  /** The browser tab's title. */
  title: string;
  /** The banner: who the invoice is from. */
  heading: string;
  /** The marker of an invoice made in test mode, in its language; null for a live invoice. */
  testMode: string | null;
  view: InvoiceDocumentView;
  status: PublicPageStatus;
  pdfUrl: string;
  fileName: string;
  /** Further downloads (Factur-X PDF, e-invoice XML), those the invoice qualifies for. */
  otherDownloads: { label: string; url: string; fileName: string }[];
  /** Null when the PDF could not be printed (no Chromium): the page still shows the invoice. */
  pdfSha256: string | null;
  /** Per response: the page's Content-Security-Policy admits only the style element that carries it. */
  nonce: string;
}

export interface InvoiceTemplates {
  version: string;
  /**
   * The document a printing page loads once: every font and the stylesheet. Each invoice then only
   * swaps in its own body, title and page style (`pdfJob`), so fonts are decoded once per page,
   * not once per PDF.
   */
  pdfShell: string;
  /** What one invoice puts into the shell. */
  pdfJob: (view: InvoiceDocumentView) => PrintJob;
  publicPage: (input: PublicPageInput) => string;
}

const templatesDirectory = (version: string) => new URL(`../../../templates/${version}/`, import.meta.url);

// `{{…}}` escapes everything a customer typed; only our own CSS and font rules go in raw (`{{{…}}}`).
const COMPILE_OPTIONS = { strict: true, knownHelpersOnly: true } as const;

/** Every Inter subset: a printing page serves any invoice, whatever script it is written in. */
const ALL_SUBSETS_SAMPLE = '\u0100\u0370\u0400\u0460\u1ea0\u1f00';

/** The seller's colours as CSS variables; the view admits only #RRGGBB values, so nothing else reaches the CSS. */
const colorRules = ({ colors }: InvoiceDocumentView): string =>
  `:root { --brand: ${colors.brand}; --on-brand: ${colors.onBrand}; --brand-text: ${colors.brandText}; }`;

/** Compiles one version's templates in a Handlebars environment of their own. */
export const loadTemplates = (version: string = TEMPLATE_VERSION): InvoiceTemplates => {
  const directory = templatesDirectory(version);
  const read = (name: string) => readFileSync(new URL(name, directory), 'utf8');
  const handlebars = Handlebars.create();
  handlebars.registerPartial('invoice', handlebars.compile(read('invoice.hbs'), COMPILE_OPTIONS));
  const pdfBody = handlebars.compile(read('pdf.hbs'), COMPILE_OPTIONS);
  const page = handlebars.compile(read('public-page.hbs'), COMPILE_OPTIONS);
  const invoiceCss = read('invoice.css');
  const pageCss = `${invoiceCss}\n${read('public-page.css')}`;
  const pdfShell = handlebars.compile(read('pdf-shell.hbs'), COMPILE_OPTIONS)({ css: invoiceCss, fontFaces: fontFacesFor(ALL_SUBSETS_SAMPLE) });
  return {
    version,
    pdfShell,
    pdfJob: (view) => ({
      title: view.title,
      lang: view.lang,
      style: `${colorRules(view)}\n@page { size: ${view.paper}; }`,
      body: pdfBody({ view }),
      paper: view.paper,
    }),
    publicPage: (input) => page({ ...input, css: `${pageCss}\n${colorRules(input.view)}`, fontFaces: fontFacesFor(JSON.stringify(input.view)) }),
  };
};
