import type { Invoice } from '@invoicing/contracts';
import { livemodeOf } from '@invoicing/service-kit/data-space';
import { paymentOf, toInvoiceDocumentView, writerFor, type InvoiceDocumentView } from '../rendering/invoice-view.domain.ts';
import type { PublicPageStatus } from '../rendering/templates.ts';

/** The shape of billing's tokens (24 random bytes, base64url) with room to change; anything else is not looked up. */
const TOKEN = /^[A-Za-z0-9_-]{16,128}$/;

export const isWellFormedToken = (token: string): boolean => TOKEN.test(token);


/** What the page says about where the invoice stands now, in the invoice's language. */
export const statusOf = (invoice: Invoice): PublicPageStatus => {
  const { t, formats, money } = writerFor(invoice);
  const due = invoice.due_date ? formats.date(invoice.due_date) : null;
  switch (invoice.status) {
    case 'open':
      return { code: 'open', label: t('status_open'), detail: due ? t('due_on', { date: due }) : t('due_on_receipt'), amountLabel: t('amount_due'), amount: money(invoice.amount_remaining) };
    case 'overdue':
      return { code: 'overdue', label: t('status_overdue'), detail: due ? t('was_due_on', { date: due }) : t('was_due_on_receipt'), amountLabel: t('amount_due'), amount: money(invoice.amount_remaining) };
    case 'paid':
      return {
        code: 'paid',
        label: t('status_paid'),
        detail: invoice.paid_at ? t('paid_on', { date: formats.date(invoice.paid_at) }) : t('paid'),
        amountLabel: t('amount_paid'),
        amount: money(invoice.amount_paid),
      };
    case 'void':
      return {
        code: 'void',
        label: t('status_void'),
        detail: invoice.voided_at ? t('voided_on', { date: formats.date(invoice.voided_at) }) : t('voided'),
        amountLabel: t('amount_due'),
        amount: money(0),
      };
    case 'draft':
      throw new Error('A draft has no public page');
  }
};

/** The downloads a public page may offer, with their names in the invoice's language. */
export const DOWNLOAD_MESSAGES = {
  facturx: 'download_facturx',
  'ubl-en16931': 'download_ubl',
  'cii-en16931': 'download_cii',
  'ubl-xrechnung': 'download_xrechnung_ubl',
  'cii-xrechnung': 'download_xrechnung_cii',
} as const;

export interface PublicPageContent {
  title: string;
  heading: string;
  /** The test mode marker, when the invoice is test data; else null. */
  testMode: string | null;
  view: InvoiceDocumentView;
  status: PublicPageStatus;
  downloadLabel: (kind: keyof typeof DOWNLOAD_MESSAGES) => string;
}

/**
 * The page: the invoice as printed, except that its payment section states what is still to pay
 * now (after payments), with a QR code for that amount, and a settled invoice asks for nothing.
 * An invoice of a test data space (`spaceId`, the workspace billing answers with) is marked as test mode.
 */
export const publicPageContentOf = (invoice: Invoice, spaceId: string): PublicPageContent => {
  const writer = writerFor(invoice);
  const printed = toInvoiceDocumentView(invoice);
  const status = statusOf(invoice);
  const payable = invoice.status === 'open' || invoice.status === 'overdue';
  const payment = payable ? paymentOf(invoice, invoice.amount_remaining, writer) : { ...printed.payment, terms: status.detail, qr: null };
  const seller = printed.seller.name;
  return {
    title: seller ? `${printed.title} · ${seller}` : printed.title,
    heading: seller ? writer.t('invoice_from', { seller }) : printed.labels.invoice,
    testMode: livemodeOf(spaceId) ? null : writer.t('test_mode'),
    view: { ...printed, payment },
    status,
    downloadLabel: (kind) => writer.t(DOWNLOAD_MESSAGES[kind]),
  };
};

/**
 * Headers of every public answer, errors included. The token is the only key to the invoice: no
 * Referer may carry it elsewhere, no search engine may index it, no cache may keep it.
 */
export const PUBLIC_HEADERS: Readonly<Record<string, string>> = {
  'referrer-policy': 'no-referrer',
  'x-robots-tag': 'noindex, nofollow, noarchive',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'cross-origin-resource-policy': 'same-origin',
};

/** The HTML page's own headers: nothing runs, nothing loads, nothing frames it; only its one nonce-bearing style applies. */
export const publicPageHeaders = (nonce: string): Record<string, string> => ({
  'content-security-policy': [
    "default-src 'none'",
    `style-src 'nonce-${nonce}'`,
    'font-src data:',
    "img-src 'self' data:",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; '),
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=(), interest-cohort=()',
  'strict-transport-security': 'max-age=31536000',
});
