import type { Address, Metadata } from '@invoicing/contracts';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

export const CustomerEntity = defineEntity({
  name: 'Customer',
  tableName: 'customers',
  properties: {
    id: p.uuid().primary(),
    workspaceId: p.uuid(),
    name: p.text(),
    email: p.text().nullable(),
    /** `bounced` after billing reported a permanent refusal of `email` (billing.email.suppressed); `ok` again once it changes. */
    emailStatus: p.enum<readonly ('ok' | 'bounced')[]>(['ok', 'bounced']),
    /** The test clock (billing's) whose time the customer's invoices and subscriptions follow; null: real time. */
    testClockId: p.uuid().nullable(),
    phone: p.text().nullable(),
    taxId: p.text().nullable(),
    address: p.json<Address>(),
    electronicAddress: p.text().nullable(),
    electronicAddressScheme: p.text().nullable(),
    buyerReference: p.text().nullable(),
    /** Buyer identifier (BT-46) and its ISO 6523 ICD scheme; a scheme only with an identifier. */
    identifier: p.text().nullable(),
    identifierScheme: p.text().nullable(),
    /** Buyer contact point (BT-56). */
    contactName: p.text().nullable(),
    preferredLocale: p.text().nullable(),
    deleted: p.boolean(),
    metadata: p.json<Metadata>(),
    created: p.datetime(3),
  },
});
export type CustomerRow = InferEntity<typeof CustomerEntity>;
