import type { Address } from '@invoicing/contracts';
import { describe, expect, it } from 'vitest';
import { customerChanges, EMPTY_ADDRESS, mergeAddress, newCustomer } from './customer.domain.ts';
import type { CustomerRow } from './customer.entity.ts';

const address = (overrides: Partial<Address> = {}): Address => ({
  ...EMPTY_ADDRESS, line1: '1 Main St', city: 'Springfield', country: 'US', ...overrides,
});

const makeCustomer = (overrides: Partial<CustomerRow> = {}): CustomerRow => ({
  id: '0190f3e2-c1b2-7a8e-9d1f-3c4b5a697887',
  workspaceId: '0190f3e2-0000-7000-8000-000000000001',
  name: 'Acme',
  email: 'ap@acme.test',
  emailStatus: 'ok',
  testClockId: null,
  phone: null,
  taxId: 'US-1',
  address: address(),
  metadata: {},
  electronicAddress: null,
  electronicAddressScheme: null,
  buyerReference: null,
  identifier: null,
  identifierScheme: null,
  contactName: null,
  preferredLocale: null,
  deleted: false,
  created: new Date('2026-01-01T00:00:00.000Z'),
  ...overrides,
});

describe('mergeAddress', () => {
  it.each<[string, Partial<Address> | undefined, Address]>([
    ['nothing sent keeps everything', undefined, address()],
    ['an empty object keeps everything', {}, address()],
    ['a key sent replaces that key only', { city: 'Shelbyville' }, address({ city: 'Shelbyville' })],
    ['null clears that key only', { line1: null }, address({ line1: null })],
    ['several keys at once', { line2: 'Suite 5', postal_code: '12345' }, address({ line2: 'Suite 5', postal_code: '12345' })],
  ])('%s', (_, sent, expected) => {
    expect(mergeAddress(address(), sent)).toEqual(expected);
  });
});

describe('customerChanges', () => {
  it.each<[string, Parameters<typeof customerChanges>[1], Partial<CustomerRow>]>([
    ['an empty patch changes nothing', {}, {}],
    ['a name', { name: 'Acme Inc' }, { name: 'Acme Inc' }],
    ['email null (sent as "" or null) clears it, and its status with it', { email: null }, { email: null, emailStatus: 'ok' }],
    ['a new email has not bounced', { email: 'new@acme.test' }, { email: 'new@acme.test', emailStatus: 'ok' }],
    ['the same email keeps its status', { email: 'ap@acme.test' }, { email: 'ap@acme.test' }],
    ['tax_id and phone', { tax_id: null, phone: '555' }, { taxId: null, phone: '555' }],
    ['address merges into the stored one', { address: { city: null } }, { address: address({ city: null }) }],
    ['e-invoice fields', { electronic_address: '991-12345-67', electronic_address_scheme: '0204', buyer_reference: '991-12345-67' }, { electronicAddress: '991-12345-67', electronicAddressScheme: '0204', buyerReference: '991-12345-67' }],
    ['an email address needs no scheme', { electronic_address: 'einvoice@acme.test' }, { electronicAddress: 'einvoice@acme.test' }],
    ['party fields', { identifier: '4000001000005', identifier_scheme: '0088', contact_name: 'Accounts payable' }, { identifier: '4000001000005', identifierScheme: '0088', contactName: 'Accounts payable' }],
    ['an identifier without a scheme', { identifier: 'ACME-7' }, { identifier: 'ACME-7' }],
  ])('%s', (_, patch, expected) => {
    expect(customerChanges(makeCustomer(), patch)).toEqual(expected);
  });

  it.each<[string, Parameters<typeof customerChanges>[1]]>([
    ['a name', { name: 'Revived' }],
    ['an empty patch', {}],
  ])('refuses any change to a deleted customer (%s) with invalid_state', (_, patch) => {
    expect(() => customerChanges(makeCustomer({ deleted: true }), patch)).toThrow(
      expect.objectContaining({ code: 'invalid_state', message: 'A deleted customer cannot be changed.' }),
    );
  });
});

describe('electronic address and its scheme, checked on the stored result', () => {
  it.each<[string, Partial<CustomerRow>, Parameters<typeof customerChanges>[1]]>([
    ['a non-email address without a scheme', {}, { electronic_address: '991-12345-67' }],
    ['a non-email address with scheme EM', {}, { electronic_address: '991-12345-67', electronic_address_scheme: 'EM' }],
    ['clearing the scheme of a stored Leitweg-ID', { electronicAddress: '991-12345-67', electronicAddressScheme: '0204' }, { electronic_address_scheme: null }],
  ])('refuses %s with a 400 on electronic_address', (_, stored, patch) => {
    expect(() => customerChanges(makeCustomer(stored), patch)).toThrow(
      expect.objectContaining({ code: 'invalid_request', errors: [expect.objectContaining({ path: 'electronic_address' })] }),
    );
  });

  it('accepts the scheme sent alone when it makes the stored address valid', () => {
    expect(customerChanges(makeCustomer({ electronicAddress: '9930:DE123' }), { electronic_address_scheme: '9930' })).toEqual({ electronicAddressScheme: '9930' });
  });
});

describe('identifier and its scheme, checked on the stored result', () => {
  it.each<[string, Partial<CustomerRow>, Parameters<typeof customerChanges>[1]]>([
    ['a scheme without an identifier', {}, { identifier_scheme: '0088' }],
    ['clearing the identifier of a stored scheme', { identifier: '4000001000005', identifierScheme: '0088' }, { identifier: null }],
  ])('refuses %s with a 400 on identifier_scheme', (_, stored, patch) => {
    expect(() => customerChanges(makeCustomer(stored), patch)).toThrow(
      expect.objectContaining({ code: 'invalid_request', errors: [expect.objectContaining({ path: 'identifier_scheme' })] }),
    );
  });

  it('accepts clearing both, or the scheme sent alone for a stored identifier', () => {
    const stored = makeCustomer({ identifier: '4000001000005', identifierScheme: '0088' });
    expect(customerChanges(stored, { identifier: null, identifier_scheme: null })).toEqual({ identifier: null, identifierScheme: null });
    expect(customerChanges(makeCustomer({ identifier: '4000001000005' }), { identifier_scheme: '0088' })).toEqual({ identifierScheme: '0088' });
  });
});

describe('newCustomer', () => {
  it('fills every unsent field with null and starts not deleted', () => {
    const sut = newCustomer('0190f3e2-0000-7000-8000-000000000001', { name: 'Solo' }, new Date('2026-02-03T04:05:06.789Z'));
    expect(sut).toMatchObject({
      name: 'Solo', email: null, phone: null, taxId: null, address: EMPTY_ADDRESS, electronicAddress: null, electronicAddressScheme: null, buyerReference: null, identifier: null, identifierScheme: null, contactName: null, deleted: false,
    });
    expect(sut.created.toISOString()).toBe('2026-02-03T04:05:06.789Z');
  });
});
