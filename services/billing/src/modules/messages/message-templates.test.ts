import type { Invoice } from '@invoicing/contracts';
import { describe, expect, it } from 'vitest';
import { composeEmail, headerText } from './message-templates.ts';
import { reminderDue } from './message.domain.ts';

/** The fields of a finalized invoice that an e-mail reads. */
const makeInvoice = (overrides: Partial<Invoice> = {}): Invoice =>
  ({
    id: 'in_0190f3e2c1b27a8e9d1f3c4b5a697887',
    number: 'INV/2026/0042',
    status: 'open',
    currency: 'EUR',
    issue_date: '2026-11-26',
    due_date: '2026-12-26',
    total: 186_686,
    amount_due: 186_686,
    amount_remaining: 186_686,
    customer_name: 'Müller GmbH',
    customer_snapshot: { name: 'Müller GmbH', email: 'billing@mueller.example' },
    business_snapshot: { business_name: 'Seller GmbH', payment_instructions: 'IBAN DE89 3704 0044 0532 0130 00', brand_color: '#1A2B3C' },
    public_url: 'https://pay.example/i/abc',
    ...overrides,
  }) as unknown as Invoice;

describe('composeEmail', () => {
  it.each([
    ['en', 'Invoice INV/2026/0042 from Seller GmbH', 'Amount due: €1,866.86 (due by Dec 26, 2026)', 'Hello Müller GmbH,'],
    ['de', 'Rechnung INV/2026/0042 von Seller GmbH', 'Offener Betrag: 1.866,86 € (fällig am 26.12.2026)', 'Guten Tag Müller GmbH,'],
    ['de-AT', 'Rechnung INV/2026/0042 von Seller GmbH', 'Offener Betrag: € 1.866,86 (fällig am 26.12.2026)', 'Guten Tag Müller GmbH,'],
    ['fr', 'Facture INV/2026/0042 de Seller GmbH', 'Montant dû : 1 866,86 € (échéance le 26 déc. 2026)', 'Bonjour Müller GmbH,'],
    ['es', 'Factura INV/2026/0042 de Seller GmbH', 'Importe pendiente: 1866,86 € (vence el 26 dic 2026)', 'Hola, Müller GmbH:'],
    ['it', 'Fattura INV/2026/0042 da Seller GmbH', 'Importo da pagare: 1866,86 € (scadenza 26 dic 2026)', 'Gentile Müller GmbH,'],
    ['nl', 'Factuur INV/2026/0042 van Seller GmbH', 'Openstaand bedrag: € 1.866,86 (te betalen uiterlijk 26 dec 2026)', 'Beste Müller GmbH,'],
    [null, 'Invoice INV/2026/0042 from Seller GmbH', 'Amount due: €1,866.86 (due by Dec 26, 2026)', 'Hello Müller GmbH,'],
  ])('writes %s', (locale, subject, amountLine, greeting) => {
    const email = composeEmail({ kind: 'invoice', invoice: makeInvoice(), note: null, locale });
    expect(email.subject).toBe(subject);
    expect(email.text.replaceAll('\u202f', ' ').replaceAll('\u00a0', ' ')).toContain(amountLine);
    expect(email.text).toContain(greeting);
    expect(email.text).toContain('https://pay.example/i/abc');
    expect(email.html).toContain(`lang="${locale ?? 'en'}"`);
  });

  it('states in a reminder what is still to be paid after partial payments, and since when it is overdue', () => {
    const email = composeEmail({ kind: 'reminder', invoice: makeInvoice({ status: 'overdue', amount_remaining: 50_000 }), note: null, locale: 'en' });
    expect(email.subject).toBe('Reminder: invoice INV/2026/0042 from Seller GmbH');
    expect(email.text).toContain('Already paid: €1,366.86\nAmount due: €500.00 (was due on Dec 26, 2026)');
    expect(email.text).toContain('If you have already paid');
    expect(email.html).toMatch(/>Already paid<\/td><td[^>]*>€1,366.86<\/td>/);
  });

  it('sets a no-break space before a colon in French, and no space in the other languages', () => {
    const french = composeEmail({ kind: 'reminder', invoice: makeInvoice({ amount_remaining: 50_000 }), note: null, locale: 'fr' });
    // A header keeps plain spaces only (headerText), so the subject's is an ordinary one.
    expect(french.subject).toBe('Rappel : facture INV/2026/0042 de Seller GmbH');
    expect(french.text).toMatch(/^Déjà réglé\u00a0: 1\u202f366,86\u00a0€$/m);
    expect(french.text).toMatch(/^Modalités de paiement\u00a0:$/m);
    expect(composeEmail({ kind: 'invoice', invoice: makeInvoice(), note: null, locale: 'de' }).text).toMatch(/^Zahlungshinweise:$/m);
  });

  it('says what was paid already only when something was, in the invoice’s language', () => {
    const unpaid = composeEmail({ kind: 'invoice', invoice: makeInvoice(), note: null, locale: 'en' });
    expect(unpaid.text).not.toContain('Already paid');
    expect(unpaid.html).not.toContain('Already paid');
    const prepaid = composeEmail({ kind: 'invoice', invoice: makeInvoice({ amount_due: 136_686, amount_remaining: 136_686 }), note: null, locale: 'de' });
    expect(prepaid.text.replaceAll('\u00a0', ' ')).toContain('über 1.866,86 €.');
    expect(prepaid.text.replaceAll('\u00a0', ' ')).toContain('Bereits bezahlt: 500,00 €\nOffener Betrag: 1.366,86 €');
  });

  it('goes on from the greeting in lower case where the language does, and starts a sentence after the sender’s note', () => {
    expect(composeEmail({ kind: 'invoice', invoice: makeInvoice(), note: null, locale: 'de' }).text).toContain('Guten Tag Müller GmbH,\n\nanbei erhalten Sie die Rechnung INV/2026/0042');
    const noted = composeEmail({ kind: 'invoice', invoice: makeInvoice(), note: 'Vielen Dank für Ihren Auftrag.', locale: 'de' });
    expect(noted.text).toContain('Guten Tag Müller GmbH,\n\nVielen Dank für Ihren Auftrag.\n\nAnbei erhalten Sie die Rechnung INV/2026/0042');
    expect(noted.html).toContain('>Anbei erhalten Sie die Rechnung INV/2026/0042');
    expect(composeEmail({ kind: 'reminder', invoice: makeInvoice(), note: 'Kurze Erinnerung.', locale: 'de' }).text).toContain('Kurze Erinnerung.\n\nWir möchten Sie freundlich');
    expect(composeEmail({ kind: 'invoice', invoice: makeInvoice(), note: 'Thanks!', locale: 'en' }).text).toContain('Thanks!\n\nHere is invoice INV/2026/0042');
  });

  it('keeps hostile text out of headers and escapes it in HTML', () => {
    const invoice = makeInvoice({
      number: 'INV\r\nBcc: x@attacker.example',
      business_snapshot: { business_name: 'Evil\r\nX-Injected: 1 =?utf-8?q?x?=', payment_instructions: '<img src=x onerror=alert(1)>', brand_color: 'red;background:url(x)' } as Invoice['business_snapshot'],
      customer_snapshot: { name: '<b>Mallory</b>' } as Invoice['customer_snapshot'],
    });
    const email = composeEmail({ kind: 'invoice', invoice, note: '"><script>alert(1)</script>', locale: 'en' });
    expect(email.subject).toBe('Invoice INV Bcc: x@attacker.example from Evil X-Injected: 1 = ?utf-8?q?x?=');
    expect(email.subject).not.toMatch(/[\r\n]/);
    expect(email.html).not.toMatch(/<script>|<img|<b>Mallory/);
    expect(email.html).toContain('&lt;b&gt;Mallory&lt;/b&gt;');
    expect(email.html).toContain('background:#1F3A5F');
  });

  it.each([
    ['#0B5FFF', '#FFFFFF'],
    ['#ffff00', '#1B1F24'],
  ])('writes on the brand colour %s in %s, readable as on the documents (WCAG 4.5:1)', (brand_color, onBrand) => {
    const invoice = makeInvoice({ business_snapshot: { ...makeInvoice().business_snapshot!, brand_color } });
    const { html } = composeEmail({ kind: 'invoice', invoice, note: null, locale: 'en' });
    const brand = brand_color.toUpperCase();
    expect(html).toContain(`background:${brand};padding:18px 28px;color:${onBrand}`);
    expect(html).toContain(`background:${brand};color:${onBrand};text-decoration:none`);
  });
});

describe('headerText', () => {
  it.each([
    ['a\r\nb', 'a b'],
    ['a\u2028b\u0000c', 'a b c'],
    ['=?utf-8?b?QQ==?=', '= ?utf-8?b?QQ== ?='],
    ['x'.repeat(300), `${'x'.repeat(199)}…`],
  ])('%j → %j', (input, output) => expect(headerText(input)).toBe(output));
});

describe('reminderDue', () => {
  it.each([
    ['before the first day', ['2026-12-01', [-3, 0, 7], '2026-11-27', null, '2026-11-01'], undefined],
    ['on the day', ['2026-12-01', [-3, 0, 7], '2026-11-28', null, '2026-11-01'], '2026-11-28'],
    ['sent that day already', ['2026-12-01', [-3, 0, 7], '2026-11-29', '2026-11-28', '2026-11-01'], undefined],
    ['missed days: the latest only', ['2026-12-01', [-3, 0, 7], '2026-12-20', '2026-11-28', '2026-11-01'], '2026-12-08'],
    ['not before finalization', ['2026-12-01', [-3], '2026-12-02', null, '2026-11-29'], undefined],
  ] as const)('%s', (_, [due, days, today, last, finalized], expected) => {
    expect(reminderDue(due, days, today, last, finalized)).toBe(expected);
  });
});
