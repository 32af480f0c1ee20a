import type { Invoice } from '@invoicing/contracts';
import { formatDate, formatMoney } from '../rendering/money.domain.ts';
import type { PublicPageStatus } from '../rendering/templates.ts';

/** The shape of billing's tokens (24 random bytes, base64url) with room to change; anything else is not looked up. */
const TOKEN = /^[A-Za-z0-9_-]{16,128}$/;

export const isWellFormedToken = (token: string): boolean => TOKEN.test(token);

/** What the page says about where the invoice stands now. */
export const statusOf = (invoice: Invoice): PublicPageStatus => {
  const money = (minor: number) => formatMoney(minor, invoice.currency);
  const due = invoice.due_date ? formatDate(invoice.due_date) : null;
  switch (invoice.status) {
    case 'open':
      return { code: 'open', label: 'Open', detail: due ? `Due ${due}` : 'Due on receipt', amountLabel: 'Amount due', amount: money(invoice.amount_due) };
    case 'overdue':
      return { code: 'overdue', label: 'Overdue', detail: `Was due ${due ?? 'on receipt'}`, amountLabel: 'Amount due', amount: money(invoice.amount_due) };
    case 'paid':
      return {
        code: 'paid',
        label: 'Paid',
        detail: invoice.paid_at ? `Paid on ${formatDate(invoice.paid_at)}` : 'Paid',
        amountLabel: 'Amount paid',
        amount: money(invoice.amount_paid),
      };
    case 'void':
      return {
        code: 'void',
        label: 'Void',
        detail: `${invoice.voided_at ? `Voided on ${formatDate(invoice.voided_at)}` : 'Voided'}: nothing is due.`,
        amountLabel: 'Amount due',
        amount: money(0),
      };
    case 'draft':
      throw new Error('A draft has no public page');
  }
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
