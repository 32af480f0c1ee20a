import type { PaymentAccount, PaymentAccountInput, PaymentMeans, PaymentMeansInput } from '@invoicing/contracts';

/**
 * Payment means (BG-16) as pure rules (decisions.md, "EN 16931 business terms beyond the first
 * set"). The account lists the ways buyers may pay, of any types; `payment_account` is no list of
 * its own but the first `credit_transfer` entry of that list. An invoice carries one type only
 * (UBL-SR-47, BR-DE-23): its own entries, else the account's entries of the first entry's type.
 */

/** An entry as sent, with every field of the shape: those the type does not use are null. */
export const paymentMeansOf = (sent: PaymentMeansInput): PaymentMeans => ({
  type: sent.type,
  information: sent.information ?? null,
  iban: sent.iban ?? null,
  bic: sent.bic ?? null,
  account_name: sent.account_name ?? null,
  mandate_reference: sent.mandate_reference ?? null,
  creditor_id: sent.creditor_id ?? null,
  debited_iban: sent.debited_iban ?? null,
  card_last4: sent.card_last4 ?? null,
  card_holder: sent.card_holder ?? null,
});

const isCreditTransfer = (means: PaymentMeans): boolean => means.type === 'credit_transfer';

/** `payment_account` as it reads: the first credit transfer of the list, null when there is none. */
export const paymentAccountOf = (list: readonly PaymentMeans[]): PaymentAccount | null => {
  const first = list.find(isCreditTransfer);
  return first?.iban != null ? { iban: first.iban, bic: first.bic, name: first.account_name } : null;
};

/** A credit transfer entry from a payment account (the shape `payment_account` had before the list). */
export const creditTransferOf = (account: PaymentAccount, information: string | null = null): PaymentMeans => ({
  ...paymentMeansOf({ type: 'credit_transfer', iban: account.iban }),
  information,
  bic: account.bic,
  account_name: account.name,
});

/**
 * The list after a PATCH of `payment_account`: the first credit transfer becomes that account
 * (keeping its `information`), or one is added at the front when the list has none; null removes
 * the first credit transfer, the other entries stay as they are.
 */
export const withPaymentAccount = (list: readonly PaymentMeans[], sent: PaymentAccountInput | null): PaymentMeans[] => {
  const index = list.findIndex(isCreditTransfer);
  if (sent === null) return list.filter((_, at) => at !== index);
  const entry = creditTransferOf({ iban: sent.iban, bic: sent.bic ?? null, name: sent.name ?? null }, index >= 0 ? list[index]!.information : null);
  return index >= 0 ? list.map((means, at) => (at === index ? entry : means)) : [entry, ...list];
};

/**
 * What an invoice is paid by, frozen at finalization: its own entries when it has any, else the
 * account's entries of the type of the account's first entry (one type per invoice); empty when
 * the account names no way to pay either.
 */
export const invoicePaymentMeansOf = (own: readonly PaymentMeans[], account: readonly PaymentMeans[]): PaymentMeans[] => {
  if (own.length > 0) return [...own];
  const type = account[0]?.type;
  return account.filter((means) => means.type === type);
};
