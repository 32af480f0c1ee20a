import type { PaymentMethod } from '@invoicing/contracts';
import { PAYMENT_METHODS } from '@invoicing/contracts';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

export const PaymentEntity = defineEntity({
  name: 'Payment',
  tableName: 'payments',
  properties: {
    id: p.uuid().primary(),
    workspaceId: p.uuid(),
    invoiceId: p.uuid(),
    amount: p.bigint('number'),
    currency: p.string().length(3),
    paidAt: p.datetime(3),
    paymentReference: p.text().nullable(),
    method: p.enum<readonly PaymentMethod[]>(PAYMENT_METHODS),
    bankStatementEntryId: p.uuid().nullable(),
    createdAt: p.datetime(3),
  },
});
export type PaymentRow = InferEntity<typeof PaymentEntity>;
