import { DEFAULT_LOCALE, type Invoice } from '@invoicing/contracts';
import { formatsFor, type LocaleFormats, type Translate } from '@invoicing/i18n';
import { documentMessages } from './document-messages.ts';
import type { en } from './messages/en.ts';

// What every part of the invoice view is written with: the invoice language's messages and
// formats, and the small helpers that leave out what was left blank.

export interface FieldView {
  label: string;
  value: string;
}

export const nonBlank = (value: string | null | undefined): string | null => (value && value.trim() !== '' ? value.trim() : null);

/** Label and value rows, the empty ones left out. */
export const fieldsFrom = (entries: [string, string | null | undefined][]): FieldView[] =>
  entries.flatMap(([label, value]) => (nonBlank(value) ? [{ label, value: value!.trim() }] : []));

export interface Writer {
  t: Translate<typeof en>;
  formats: LocaleFormats;
  money: (minor: number) => string;
}

export const periodText = (period: { start: string; end: string }, { t, formats }: Writer): string =>
  t('period', { start: formats.date(period.start), end: formats.date(period.end) });

/** The writer of an invoice's language: its messages and CLDR formats. */
export const writerFor = (invoice: Pick<Invoice, 'locale' | 'currency'>): Writer => {
  const locale = invoice.locale ?? DEFAULT_LOCALE;
  const formats = formatsFor(locale);
  return { t: documentMessages(locale), formats, money: (minor) => formats.money(minor, invoice.currency) };
};
