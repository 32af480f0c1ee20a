import { generate, validate } from 'node-iso11649';

/** ISO 11649: `RF`, two check digits, and a reference of 1 to 21 letters and digits. */
export const CREDITOR_REFERENCE_BODY_MAX = 21;

/**
 * The ISO 11649 creditor reference of an invoice number (decisions.md, "Payments and bank
 * statements"): its letters and digits, uppercase, behind `RF` and the check digits (mod 97,
 * computed by node-iso11649). A number with more than 21 of them keeps its last 21, where the
 * sequence is; one with none has no reference.
 */
export const remittanceReferenceOf = (number: string): string | null => {
  const body = number.toUpperCase().replace(/[^0-9A-Z]/g, '').slice(-CREDITOR_REFERENCE_BODY_MAX);
  return body === '' ? null : generate(body);
};

/** Whether text is a well-formed creditor reference with correct check digits (spaces and case ignored). */
export const isCreditorReference = (text: string): boolean => validate(text.replace(/\s+/g, '').toUpperCase());
