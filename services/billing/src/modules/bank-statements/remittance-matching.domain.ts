/**
 * Which invoice a transfer's remittance information names (decisions.md, "Payments and bank
 * statements"): its creditor reference (`RF…`) or its number, also as people type them into a
 * bank's remittance line: with spaces, without separators, in lower case. Both sides are reduced
 * to their letters and digits in upper case, and the invoice's key must appear in the text without
 * a digit running on at either end where the key itself ends in a digit (`INV20260001` is not found in
 * `INV202600012`).
 */

/** Letters and digits only, upper case: `inv 2026/0001` and `INV-2026-0001` both read `INV20260001`. */
export const normalizedReference = (text: string): string => text.toUpperCase().replace(/[^0-9A-Z]/g, '');

export interface OpenInvoiceKeys {
  id: string;
  number: string | null;
  remittanceReference: string | null;
}

/** The open invoices of a workspace by every key a transfer may name them with. */
export interface InvoiceIndex {
  byKey: ReadonlyMap<string, ReadonlySet<string>>;
  /** The lengths of the keys, longest first: each is looked up at every place in a text. */
  lengths: readonly number[];
}

/** Shorter keys than this match too much of ordinary text (a number `1` would be in every date). */
const KEY_LENGTH_MIN = 4;

export const indexInvoices = (invoices: readonly OpenInvoiceKeys[]): InvoiceIndex => {
  const byKey = new Map<string, Set<string>>();
  const add = (key: string, id: string) => {
    if (key.length < KEY_LENGTH_MIN) return;
    let ids = byKey.get(key);
    if (!ids) byKey.set(key, (ids = new Set()));
    ids.add(id);
  };
  for (const invoice of invoices) {
    if (invoice.number) add(normalizedReference(invoice.number), invoice.id);
    if (invoice.remittanceReference) add(normalizedReference(invoice.remittanceReference), invoice.id);
  }
  return { byKey, lengths: [...new Set([...byKey.keys()].map((key) => key.length))].sort((a, b) => b - a) };
};

const isDigit = (char: string | undefined): boolean => char !== undefined && char >= '0' && char <= '9';

/** The IDs of the open invoices the remittance information names (none, one, or several: then it is ambiguous). */
export const invoicesNamedIn = (index: InvoiceIndex, remittance: string | null): Set<string> => {
  const found = new Set<string>();
  if (!remittance) return found;
  const text = normalizedReference(remittance);
  for (const length of index.lengths) {
    for (let start = 0; start + length <= text.length; start += 1) {
      const key = text.slice(start, start + length);
      const ids = index.byKey.get(key);
      if (!ids) continue;
      if (isDigit(key[0]) && isDigit(text[start - 1])) continue;
      if (isDigit(key[key.length - 1]) && isDigit(text[start + length])) continue;
      for (const id of ids) found.add(id);
    }
  }
  return found;
};
