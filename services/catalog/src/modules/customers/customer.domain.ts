import { toPublicId, type Address, type CreateCustomerBody, type Customer, type UpdateCustomerBody } from '@invoicing/contracts';
import { invalidState, newId } from '@invoicing/service-kit';
import type { CustomerRow } from './customer.entity.ts';

export const EMPTY_ADDRESS: Address = { line1: null, line2: null, city: null, state: null, postal_code: null, country: null };

export const newCustomer = (workspaceId: string, body: CreateCustomerBody, now: Date): CustomerRow => ({
  id: newId(),
  workspaceId,
  name: body.name,
  email: body.email ?? null,
  phone: body.phone ?? null,
  taxId: body.tax_id ?? null,
  address: mergeAddress(EMPTY_ADDRESS, body.address),
  deleted: false,
  created: now,
});

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
  return {
    ...(patch.name !== undefined ? { name: patch.name } : {}),
    ...(patch.email !== undefined ? { email: patch.email } : {}),
    ...(patch.phone !== undefined ? { phone: patch.phone } : {}),
    ...(patch.tax_id !== undefined ? { taxId: patch.tax_id } : {}),
    ...(patch.address !== undefined ? { address: mergeAddress(current.address, patch.address) } : {}),
  };
};

/** Archiving is a soft delete: invoices keep the customer's details, and it stays retrievable. */
export const archivedCustomer = (): Pick<CustomerRow, 'deleted'> => ({ deleted: true });

export const customerView = (row: CustomerRow): Customer => ({
  id: toPublicId('customer', row.id),
  object: 'customer',
  name: row.name,
  email: row.email ?? null,
  phone: row.phone ?? null,
  tax_id: row.taxId ?? null,
  address: row.address,
  deleted: row.deleted,
  created: row.created.toISOString(),
});
