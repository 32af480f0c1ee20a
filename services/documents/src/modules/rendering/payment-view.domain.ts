import type { Invoice, PaymentMeans } from '@invoicing/contracts';
import { epcPayload, qrCodeSvg } from './payment-qr.domain.ts';
import { fieldsFrom, nonBlank, type FieldView, type Writer } from './view-writer.domain.ts';

// How the invoice asks to be paid: the terms, the payment means, the payee, the reference to
// quote and the payment QR code.

/** One way to pay (BG-16): a sentence where one is needed, and its particulars. */
export interface PaymentMeansView {
  text: string | null;
  fields: FieldView[];
}

export interface PaymentView {
  /** "Please pay €1,445.15 by Dec 20, 2026."; for a direct debit or a card, what will be debited or was paid. */
  terms: string;
  /** The party paid when it is not the seller (BG-10). */
  payee: string | null;
  /** The invoice's payment means, in order: accounts to pay into, the debit's mandate, the card. */
  means: PaymentMeansView[];
  /** What the payer quotes with the transfer: the remittance reference, else the number. */
  reference: string;
  /** An EPC069-12 code for a EUR invoice paid into a credit-transfer account; null otherwise. */
  qr: { svg: string; caption: string } | null;
}

/** Spaces every four characters, as IBANs are printed (ISO 13616 paper format). */
const ibanInGroups = (iban: string): string => iban.replace(/(.{4})(?=.)/g, '$1 ');

/**
 * The invoice's payment means (BG-16); an invoice from before they existed has its seller's
 * credit-transfer account, which is what they read as.
 */
const paymentMeansOf = (invoice: Invoice): PaymentMeans[] => {
  if (invoice.payment_means.length > 0) return invoice.payment_means;
  const account = invoice.business_snapshot?.payment_account;
  return account
    ? [{ type: 'credit_transfer', information: null, iban: account.iban, bic: account.bic, account_name: account.name, mandate_reference: null, creditor_id: null, debited_iban: null, card_last4: null, card_holder: null }]
    : [];
};

const meansViewOf = (means: PaymentMeans, { t }: Writer): PaymentMeansView => {
  const information = nonBlank(means.information);
  switch (means.type) {
    case 'credit_transfer':
      return {
        text: information,
        fields: fieldsFrom([
          [t('account_holder'), means.account_name],
          [t('iban'), means.iban ? ibanInGroups(means.iban) : null],
          [t('bic'), means.bic],
        ]),
      };
    case 'sepa_direct_debit':
      return { text: information, fields: fieldsFrom([[t('mandate_reference'), means.mandate_reference], [t('creditor_id'), means.creditor_id]]) };
    case 'card':
      return { text: information, fields: fieldsFrom([[t('card_holder'), means.card_holder]]) };
    case 'paypal':
      return { text: information ?? t('means_paypal'), fields: [] };
    case 'other':
      return { text: information, fields: [] };
  }
};

/** What the reader is asked: to pay by a date, or told what will be debited from their account or was paid by card. */
const termsOf = (invoice: Invoice, first: PaymentMeans | undefined, amount: number, { t, formats, money }: Writer): string => {
  if (amount <= 0) return t('nothing_due');
  const due = money(amount);
  if (first?.type === 'sepa_direct_debit') {
    const iban = nonBlank(first.debited_iban);
    return iban ? t('debit_terms', { amount: due, iban: ibanInGroups(iban) }) : t('debit_terms_no_iban', { amount: due });
  }
  if (first?.type === 'card') {
    const last4 = nonBlank(first.card_last4);
    return last4 ? t('card_terms', { amount: due, last4 }) : t('card_terms_no_digits', { amount: due });
  }
  return invoice.due_date ? t('pay_by', { amount: due, date: formats.date(invoice.due_date) }) : t('pay_on_receipt', { amount: due });
};

/**
 * How to pay the amount due at finalization: the terms, the payment means, the reference to quote
 * and, for a EUR invoice paid by credit transfer, a payment QR code for its first account.
 * `amount` is given by the caller: the PDF states what finalization made due, the public page what
 * is still to pay.
 */
export const paymentOf = (invoice: Invoice, amount: number, writer: Writer): PaymentView => {
  const business = invoice.business_snapshot!;
  // The ISO 11649 creditor reference goes into the QR code's structured field; invoices finalized before it have only their number.
  const reference = nonBlank(invoice.remittance_reference) ?? invoice.number!;
  const means = paymentMeansOf(invoice);
  const transfer = means.find((entry) => entry.type === 'credit_transfer' && nonBlank(entry.iban));
  const payee = nonBlank(invoice.payee?.name);
  const name = nonBlank(transfer?.account_name) ?? payee ?? nonBlank(business.business_name);
  const payload =
    transfer && name && amount > 0 && invoice.currency === 'EUR' ? epcPayload({ name, iban: transfer.iban!, bic: transfer.bic, amount, remittance: reference }) : null;
  return {
    terms: termsOf(invoice, means[0], amount, writer),
    payee,
    means: means.map((entry) => meansViewOf(entry, writer)).filter((view) => view.text !== null || view.fields.length > 0),
    reference,
    qr: payload ? { svg: qrCodeSvg(payload, writer.t('qr_caption')), caption: writer.t('qr_caption') } : null,
  };
};
