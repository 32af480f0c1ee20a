import { minorToDecimal } from '@invoicing/i18n';
import QRCode from 'qrcode';

/** A SEPA credit transfer as a payment QR code states it (EPC069-12, "GiroCode"). */
export interface CreditTransferOrder {
  /** The beneficiary: the account holder, else the seller. */
  name: string;
  iban: string;
  bic: string | null;
  /** In euro cents. */
  amount: number;
  /** An ISO 11649 creditor reference (`RF…`) goes into the structured field; anything else is free text. */
  remittance: string;
}

const NAME_MAX = 70;
const UNSTRUCTURED_MAX = 140;
const AMOUNT_MAX = 99_999_999_999; // EUR 999,999,999.99
const CREDITOR_REFERENCE = /^RF\d{2}[A-Z0-9]{1,21}$/;

/**
 * The EPC069-12 payload (version 002, UTF-8, SEPA credit transfer): one field per line, in the
 * order the guideline fixes, trailing empty fields left off. Null when the order cannot be
 * expressed (an amount out of the guideline's range), so no code that a banking app would
 * refuse is ever printed.
 */
export const epcPayload = (order: CreditTransferOrder): string | null => {
  if (!Number.isSafeInteger(order.amount) || order.amount < 1 || order.amount > AMOUNT_MAX) return null;
  const structured = CREDITOR_REFERENCE.test(order.remittance);
  const fields = [
    'BCD',
    '002',
    '1',
    'SCT',
    order.bic ?? '',
    [...order.name.replace(/\s+/g, ' ').trim()].slice(0, NAME_MAX).join(''),
    order.iban,
    `EUR${minorToDecimal(order.amount, 'EUR')}`,
    '',
    structured ? order.remittance : '',
    structured ? '' : [...order.remittance].slice(0, UNSTRUCTURED_MAX).join(''),
  ];
  while (fields.at(-1) === '') fields.pop();
  return fields.join('\n');
};

/**
 * A QR code as an SVG element of whole modules (error correction M, as EPC069-12 asks), with the
 * quiet zone the standard needs. Drawn from QR Code's module matrix, so the same payload always
 * gives the same bytes, which keeps the PDF byte-identical across renders.
 */
export const qrCodeSvg = (payload: string, label: string): string => {
  const { modules } = QRCode.create(payload, { errorCorrectionLevel: 'M' });
  const quiet = 4;
  const size = modules.size + 2 * quiet;
  let path = '';
  for (let row = 0; row < modules.size; row += 1) {
    for (let column = 0; column < modules.size; column += 1) {
      if (modules.get(row, column)) path += `M${column + quiet} ${row + quiet}h1v1h-1z`;
    }
  }
  const escapedLabel = label.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${size} ${size}" shape-rendering="crispEdges" role="img" aria-label="${escapedLabel}"><rect width="${size}" height="${size}" fill="#fff"/><path d="${path}" fill="#000"/></svg>`;
};
