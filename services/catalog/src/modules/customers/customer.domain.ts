import { electronicAddressProblem, toPublicId, type Address, type CreateCustomerBody, type Customer, type UpdateCustomerBody } from '@invoicing/contracts';
import { invalidRequest, invalidState } from '@invoicing/service-kit/app-error';
import { newId } from '@invoicing/service-kit/ids';
import { mergeMetadata } from '@invoicing/service-kit/metadata';
import type { CustomerRow } from './customer.entity.ts';
import { livemodeOf } from '@invoicing/service-kit/data-space';

export const EMPTY_ADDRESS: Address = { line1: null, line2: null, city: null, state: null, postal_code: null, country: null };

/**
 * The electronic address and its scheme as they will be stored, whichever of them the write sent:
 * without a scheme (or with `EM`) it must be an email address. 400 on `electronic_address`.
 */
export const assertElectronicAddressFits = (row: Pick<CustomerRow, 'electronicAddress' | 'electronicAddressScheme'>): void => {
  const problem = electronicAddressProblem(row.electronicAddress, row.electronicAddressScheme);
  if (problem) throw invalidRequest(`electronic_address ${problem}.`, [{ path: 'electronic_address', message: problem }]);
};

/**
 * A buyer identifier's scheme qualifies the identifier (BT-46-1): as stored, it needs an
 * identifier, whichever of them the write sent. 400 on `identifier_scheme`.
 */
export const assertIdentifierFits = (row: Pick<CustomerRow, 'identifier' | 'identifierScheme'>): void => {
  if (row.identifierScheme != null && row.identifier == null) {
    throw invalidRequest('identifier_scheme needs an identifier.', [{ path: 'identifier_scheme', message: 'is the scheme of identifier (BT-46), which is not set: send identifier with it' }]);
  }
};

/** The rules a customer's fields obey together, checked on the row as it will be stored. */
const assertCustomerFits = (row: CustomerRow): void => {
  assertElectronicAddressFits(row);
  assertIdentifierFits(row);
};

/** `testClockId`: the clock named by `test_clock`, once billing said it exists in the workspace. */
export const newCustomer = (workspaceId: string, body: CreateCustomerBody, now: Date, testClockId: string | null = null): CustomerRow => {
  const row: CustomerRow = {
    id: newId(),
    workspaceId,
    name: body.name,
    email: body.email ?? null,
    emailStatus: 'ok',
    testClockId,
    phone: body.phone ?? null,
    taxId: body.tax_id ?? null,
    address: mergeAddress(EMPTY_ADDRESS, body.address),
    electronicAddress: body.electronic_address ?? null,
    electronicAddressScheme: body.electronic_address_scheme ?? null,
    buyerReference: body.buyer_reference ?? null,
    identifier: body.identifier ?? null,
    identifierScheme: body.identifier_scheme ?? null,
    contactName: body.contact_name ?? null,
    preferredLocale: body.preferred_locale ?? null,
    metadata: mergeMetadata({}, body.metadata),
    deleted: false,
    created: now,
  };
  assertCustomerFits(row);
  return row;
};

/** Only the keys sent change; a key sent as null clears that line. */
export const mergeAddress = (current: Address, sent: Partial<Address> | undefined): Address => {
  const merged = { ...current };
  for (const key of Object.keys(EMPTY_ADDRESS) as (keyof Address)[]) {
    const value = sent?.[key];
    if (value !== undefined) merged[key] = value;
  }
  return merged;
};

/**
 * The fields a PATCH changes; omitted fields keep their values. A deleted customer is final, as
 * Stripe clients expect: a write to it is refused rather than quietly changing an archived record.
 */
export const customerChanges = (current: CustomerRow, patch: UpdateCustomerBody): Partial<CustomerRow> => {
  if (current.deleted) throw invalidState('A deleted customer cannot be changed.');
  const changes: Partial<CustomerRow> = {
    ...(patch.name !== undefined ? { name: patch.name } : {}),
    // A new address has not bounced: sending to it is tried again.
    ...(patch.email !== undefined ? { email: patch.email, ...(patch.email !== current.email ? { emailStatus: 'ok' as const } : {}) } : {}),
    ...(patch.phone !== undefined ? { phone: patch.phone } : {}),
    ...(patch.tax_id !== undefined ? { taxId: patch.tax_id } : {}),
    ...(patch.address !== undefined ? { address: mergeAddress(current.address, patch.address) } : {}),
    ...(patch.electronic_address !== undefined ? { electronicAddress: patch.electronic_address } : {}),
    ...(patch.electronic_address_scheme !== undefined ? { electronicAddressScheme: patch.electronic_address_scheme } : {}),
    ...(patch.buyer_reference !== undefined ? { buyerReference: patch.buyer_reference } : {}),
    ...(patch.identifier !== undefined ? { identifier: patch.identifier } : {}),
    ...(patch.identifier_scheme !== undefined ? { identifierScheme: patch.identifier_scheme } : {}),
    ...(patch.contact_name !== undefined ? { contactName: patch.contact_name } : {}),
    ...(patch.preferred_locale !== undefined ? { preferredLocale: patch.preferred_locale } : {}),
    ...(patch.metadata !== undefined ? { metadata: mergeMetadata(current.metadata, patch.metadata) } : {}),
  };
  assertCustomerFits({ ...current, ...changes });
  return changes;
};

/** Archiving is a soft delete: invoices keep the customer's details, and it stays retrievable. */
export const archivedCustomer = (): Pick<CustomerRow, 'deleted'> => ({ deleted: true });

export const customerView = (row: CustomerRow): Customer => ({
  id: toPublicId('customer', row.id),
  object: 'customer',
  livemode: livemodeOf(row.workspaceId),
  name: row.name,
  email: row.email ?? null,
  phone: row.phone ?? null,
  tax_id: row.taxId ?? null,
  address: row.address,
  electronic_address: row.electronicAddress ?? null,
  electronic_address_scheme: row.electronicAddressScheme ?? null,
  buyer_reference: row.buyerReference ?? null,
  identifier: row.identifier ?? null,
  identifier_scheme: row.identifierScheme ?? null,
  contact_name: row.contactName ?? null,
  preferred_locale: row.preferredLocale ?? null,
  email_status: row.emailStatus ?? 'ok',
  test_clock: row.testClockId ? toPublicId('testClock', row.testClockId) : null,
  deleted: row.deleted,
  metadata: row.metadata,
  created: row.created.toISOString(),
});
