import { buildOpenApiDocument } from '@invoicing/contracts/openapi';
import { afterAll, describe, expect, it } from 'vitest';
import { createResponseValidator, operationsOf, type OpenApiDocument } from './support/openapi.ts';

/**
 * The served document leaves answers open to fields added later (its growth rule), so the contract
 * fuzzer closes them itself: this version of the server must send no field its document does not name.
 */
const document = buildOpenApiDocument() as unknown as OpenApiDocument;
const validator = createResponseValidator(document);
afterAll(() => validator.dispose());
const operation = (operationId: string) => operationsOf(document).find((candidate) => candidate.operationId === operationId)!;

const customer = {
  id: 'cus_0190f3e2c1b27a8e9d1f3c4b5a697887',
  object: 'customer',
  livemode: true,
  name: 'Müller GmbH',
  email: null,
  phone: null,
  tax_id: null,
  address: { line1: null, line2: null, city: null, state: null, postal_code: null, country: 'DE' },
  electronic_address: null,
  electronic_address_scheme: null,
  buyer_reference: null,
  identifier: null,
  identifier_scheme: null,
  contact_name: null,
  preferred_locale: null,
  email_status: 'ok',
  test_clock: null,
  deleted: false,
  metadata: {},
  created: '2026-11-22T10:00:00.000Z',
};

describe('the fuzzer’s response check', () => {
  it('reads a document whose answers are open', () => {
    expect(document.components.schemas.Customer!.additionalProperties).toBeUndefined();
  });

  it('takes a documented answer and refuses one with a field the document does not name, at any depth', async () => {
    const retrieve = operation('retrieveCustomer');
    const valid = await validator.check(retrieve, 200, 'application/json', { data: { ...customer } });
    // The whole customer as the document states it: a failure names what is missing.
    if (valid !== undefined) {
      const required = (document.components.schemas.Customer!.required ?? []).filter((name) => !(name in customer));
      throw new Error(`the sample customer lacks ${required.join(', ')}: ${valid}`);
    }
    expect(await validator.check(retrieve, 200, 'application/json', { data: { ...customer, nickname: 'x' } })).toBeDefined();
    expect(await validator.check(retrieve, 200, 'application/json', { data: { ...customer, address: { ...customer.address, district: 'x' } } })).toBeDefined();
    expect(await validator.check(retrieve, 200, 'application/json', { data: customer, extra: 1 })).toBeDefined();
  });
});
