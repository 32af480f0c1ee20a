import { canonicalLocale, type Invoice, type MessageKind } from '@invoicing/contracts';
import { brandColorsOf, formatsFor } from '@invoicing/i18n';
import Handlebars from 'handlebars';
import { emailMessages } from './email-messages.ts';

/**
 * The subject and body of an invoice e-mail and of a reminder, in plain text and HTML. Everything
 * a person typed (names, the note, payment instructions) reaches only the body, escaped by
 * Handlebars in the HTML; the subject is built from the invoice number and the seller's name,
 * made safe for a header by `headerText`.
 */
export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

export interface EmailInput {
  kind: MessageKind;
  invoice: Invoice;
  /** The sender's personal note, if any. */
  note: string | null;
  /** BCP 47 tag of the invoice; English when null. */
  locale: string | null;
}

/**
 * Text that goes into a header: no control characters (CR and LF end a header; the rest have no
 * business there), whitespace collapsed, and `=?` broken up so that no part of it reads as an
 * RFC 2047 encoded word that a mail reader would decode into something else. Nodemailer then
 * encodes what is not ASCII itself.
 */
export const headerText = (value: string, max = 200): string => {
  const flat = value
    .replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, ' ')
    .replace(/=\?/g, '= ?')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
};

/** Body text: line breaks kept (normalized), other control characters dropped. */
const bodyText = (value: string): string =>
  value
    .replace(/\r\n?/g, '\n')
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, '')
    .trim();

/** The invoice's locale as stored (canonical), or English; a tag we cannot write in falls back to English. */
const localeFor = (locale: string | null): string => (locale && canonicalLocale(locale)) || 'en';

const HTML = Handlebars.compile(
  `<!doctype html>
<html lang="{{lang}}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>{{subject}}</title></head>
<body style="margin:0;padding:0;background:#f4f5f7;font-family:-apple-system,'Segoe UI',Roboto,Helvetica,Arial,sans-serif;color:#1f2328">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f4f5f7;padding:24px 0"><tr><td align="center">
<table role="presentation" width="560" cellpadding="0" cellspacing="0" style="max-width:560px;width:100%;background:#ffffff;border-radius:8px;overflow:hidden">
<tr><td style="background:{{brand}};padding:18px 28px;color:{{onBrand}};font-size:18px;font-weight:600">{{seller}}</td></tr>
<tr><td style="padding:28px">
<p style="margin:0 0 12px">{{greeting}}</p>
{{#if note}}<p style="margin:0 0 16px;white-space:pre-line">{{note}}</p>{{/if}}
<p style="margin:0 0 20px">{{intro}}</p>
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="border:1px solid #d0d7de;border-radius:6px;margin:0 0 20px">
{{#if paid}}<tr><td style="padding:14px 16px 0;color:#57606a;font-size:13px">{{alreadyPaidLabel}}</td><td align="right" style="padding:14px 16px 0;color:#57606a;font-size:13px">{{paid}}</td></tr>{{/if}}
<tr><td style="padding:14px 16px;color:#57606a;font-size:13px">{{amountDueLabel}}</td><td align="right" style="padding:14px 16px;font-size:22px;font-weight:700">{{amount}}</td></tr>
{{#if dueLine}}<tr><td colspan="2" style="padding:0 16px 14px;color:{{dueColor}};font-size:13px">{{dueLine}}</td></tr>{{/if}}
</table>
{{#if url}}<p style="margin:0 0 8px">{{viewOnline}}</p>
<p style="margin:0 0 24px"><a href="{{url}}" style="display:inline-block;background:{{brand}};color:{{onBrand}};text-decoration:none;padding:10px 18px;border-radius:6px;font-weight:600">{{button}}</a></p>{{/if}}
{{#if instructions}}<p style="margin:0 0 4px;font-weight:600">{{howToPay}}</p><p style="margin:0 0 20px;white-space:pre-line">{{instructions}}</p>{{/if}}
{{#if attachedLine}}<p style="margin:0 0 20px;color:#57606a;font-size:13px">{{attachedLine}}</p>{{/if}}
{{#if ignore}}<p style="margin:0 0 20px;color:#57606a;font-size:13px">{{ignore}}</p>{{/if}}
<p style="margin:0">{{closing}}<br>{{seller}}</p>
</td></tr></table>
{{#if url}}<p style="color:#8c959f;font-size:12px;margin:16px 0 0">{{url}}</p>{{/if}}
</td></tr></table>
</body></html>`,
  { strict: true },
);

/**
 * The e-mail for one invoice. `amount` is what is still to be paid (after partial payments), not
 * the total; the due line says when it is due, or since when it is overdue.
 */
export const composeEmail = ({ kind, invoice, note, locale }: EmailInput, attachmentNames: readonly string[] = []): EmailContent => {
  const tag = localeFor(locale);
  const t = emailMessages(tag);
  const formats = formatsFor(tag);
  const seller = headerText(invoice.business_snapshot?.business_name ?? invoice.customer_snapshot?.name ?? 'Invoice', 120);
  const number = headerText(invoice.number ?? '', 64);
  const customer = bodyText(invoice.customer_snapshot?.name ?? invoice.customer_name);
  const amount = formats.money(invoice.amount_remaining, invoice.currency);
  // Why the amount due is less than the total the intro names: prepaid (BT-113) and payments recorded since.
  const paidSoFar = invoice.total - invoice.amount_remaining;
  const paid = paidSoFar > 0 ? formats.money(paidSoFar, invoice.currency) : '';
  const issued = formats.date(invoice.issue_date);
  const overdue = invoice.status === 'overdue';
  const dueLine = invoice.due_date ? t(overdue ? 'overdue_since' : 'due_by', { date: formats.date(invoice.due_date) }) : '';
  const subject = headerText(t(kind === 'reminder' ? 'subject_reminder' : 'subject_invoice', { number, seller }));
  const cleanNote = note ? bodyText(note) : '';
  const written = kind === 'reminder' ? t('reminder_intro', { number, issued }) : t('invoice_intro', { number, issued, total: formats.money(invoice.total, invoice.currency) });
  // A letter's first sentence may go on from the greeting in lower case (German: "Guten Tag …, anbei …");
  // after the sender's note it starts a sentence of its own.
  const intro = cleanNote ? `${written.charAt(0).toLocaleUpperCase(tag)}${written.slice(1)}` : written;
  const greeting = t('greeting', { customer });
  const instructions = invoice.business_snapshot?.payment_instructions ? bodyText(invoice.business_snapshot.payment_instructions) : '';
  const attachedLine = attachmentNames.length ? t('attached', { files: attachmentNames.join(', ') }) : '';
  const ignore = kind === 'reminder' ? t('reminder_ignore') : '';
  // The sender's own words come right after the greeting, before the invoice's particulars.
  const text = [
    greeting,
    '',
    ...(cleanNote ? [cleanNote, ''] : []),
    intro,
    '',
    ...(paid ? [t('labelled', { label: t('already_paid'), value: paid })] : []),
    t('labelled', { label: t('amount_due'), value: `${amount}${dueLine ? ` (${dueLine})` : ''}` }),
    '',
    ...(invoice.public_url ? [t('view_online'), invoice.public_url, ''] : []),
    ...(instructions ? [t('heading', { label: t('how_to_pay') }), instructions, ''] : []),
    ...(attachedLine ? [attachedLine, ''] : []),
    ...(ignore ? [ignore, ''] : []),
    t('closing'),
    seller,
  ].join('\n');
  const html = HTML({
    lang: tag,
    subject,
    // Colours safe in a style attribute (only a validated #RRGGBB) and as the documents have them: text on the brand colour stays readable.
    ...brandColorsOf(invoice.business_snapshot?.brand_color ?? null),
    seller,
    note: cleanNote,
    greeting,
    intro,
    alreadyPaidLabel: t('already_paid'),
    paid,
    amountDueLabel: t('amount_due'),
    amount,
    dueLine,
    dueColor: overdue ? '#CF222E' : '#57606A',
    url: invoice.public_url ?? '',
    viewOnline: t('view_online'),
    button: t('button'),
    instructions,
    howToPay: t('how_to_pay'),
    attachedLine,
    ignore,
    closing: t('closing'),
  });
  return { subject, text, html };
};
