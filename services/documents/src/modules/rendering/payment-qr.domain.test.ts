import { describe, expect, it } from 'vitest';
import { epcPayload, qrCodeSvg } from './payment-qr.domain.ts';

const order = { name: 'Acme Design Studio', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', amount: 145_515, remittance: 'INV/2026/0042' };

describe('the EPC069-12 payload', () => {
  it('states a SEPA credit transfer field by field, free text as unstructured remittance', () => {
    expect(epcPayload(order)).toBe('BCD\n002\n1\nSCT\nCOBADEFFXXX\nAcme Design Studio\nDE89370400440532013000\nEUR1455.15\n\n\nINV/2026/0042');
  });

  it('puts an ISO 11649 creditor reference into the structured field and leaves the rest off', () => {
    expect(epcPayload({ ...order, remittance: 'RF18539007547034' })).toBe('BCD\n002\n1\nSCT\nCOBADEFFXXX\nAcme Design Studio\nDE89370400440532013000\nEUR1455.15\n\nRF18539007547034');
  });

  it('leaves the BIC out when there is none (version 002 allows it within the EEA)', () => {
    expect(epcPayload({ ...order, bic: null })?.split('\n')[4]).toBe('');
  });

  it('cuts the name at 70 characters and the text at 140, as the guideline limits them', () => {
    const payload = epcPayload({ ...order, name: 'N'.repeat(90), remittance: 'R'.repeat(200) })!.split('\n');
    expect(payload[5]).toHaveLength(70);
    expect(payload[10]).toHaveLength(140);
  });

  it.each([0, -5, 100_000_000_000])('gives no code for an amount of %i cents, which banking apps refuse', (amount) => {
    expect(epcPayload({ ...order, amount })).toBeNull();
  });
});

describe('the QR code', () => {
  it('is the same SVG for the same payload, so PDFs stay byte-identical', () => {
    const payload = epcPayload(order)!;
    expect(qrCodeSvg(payload, 'Scan')).toBe(qrCodeSvg(payload, 'Scan'));
    expect(qrCodeSvg(payload, 'Scan "me" <now>')).toContain('aria-label="Scan &quot;me&quot; &lt;now>"');
  });
});
