import { PRICE_TYPES, RECURRING_INTERVALS, type Metadata } from '@invoicing/contracts';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

export const PriceEntity = defineEntity({
  name: 'Price',
  tableName: 'prices',
  properties: {
    id: p.uuid().primary(),
    workspaceId: p.uuid(),
    productId: p.uuid(),
    nickname: p.text().nullable(),
    unitAmount: p.bigint('number'),
    currency: p.string().length(3),
    type: p.enum(PRICE_TYPES),
    recurringInterval: p.enum(RECURRING_INTERVALS).nullable(),
    recurringIntervalCount: p.smallint().nullable(),
    taxRate: p.decimal('number').precision(7).scale(4),
    active: p.boolean(),
    metadata: p.json<Metadata>(),
    created: p.datetime(3),
  },
});
export type PriceRow = InferEntity<typeof PriceEntity>;
