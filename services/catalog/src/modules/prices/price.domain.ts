import {
  toPublicId,
  type CreatePriceBody,
  type Price,
  type PriceType,
  type Recurring,
  type UpdatePriceBody,
} from '@invoicing/contracts';
import { invalidRequest } from '@invoicing/service-kit/app-error';
import { newId } from '@invoicing/service-kit/ids';
import { mergeMetadata } from '@invoicing/service-kit/metadata';
import type { PriceRow } from './price.entity.ts';
import { livemodeOf } from '@invoicing/service-kit/data-space';

/** What a price bills: once, or on a schedule that exists exactly when the type is recurring. */
export interface Billing {
  type: PriceType;
  recurring: Recurring | null;
}

const recurringRefused = (message: string) =>
  invalidRequest(`recurring ${message}.`, [{ path: 'recurring', message }]);

/** Create: `recurring` is required for a recurring price and refused for a one-time price. */
export const billingForCreate = (type: PriceType, recurring: Recurring | null | undefined): Billing => {
  if (type === 'recurring') {
    if (!recurring) throw recurringRefused('is required when type is recurring');
    return { type, recurring };
  }
  if (recurring) throw recurringRefused('must be absent or null when type is one_time');
  return { type, recurring: null };
};

/**
 * Update: changing `type` needs a matching `recurring` in the same request; a recurring price
 * may get a new schedule on its own, which replaces the old one as a whole.
 */
export const billingForUpdate = (current: Billing, patch: Pick<UpdatePriceBody, 'type' | 'recurring'>): Billing => {
  const type = patch.type ?? current.type;
  if (type === 'one_time') {
    if (patch.recurring) throw recurringRefused('must be absent or null when type is one_time');
    return { type, recurring: null };
  }
  if (patch.recurring === null) throw recurringRefused('cannot be null for a recurring price');
  if (patch.recurring) return { type, recurring: patch.recurring };
  if (current.type === 'recurring') return current;
  throw recurringRefused('is required when type changes to recurring');
};

export const billingOf = (row: PriceRow): Billing => ({
  type: row.type,
  recurring:
    row.recurringInterval && row.recurringIntervalCount
      ? { interval: row.recurringInterval, interval_count: row.recurringIntervalCount }
      : null,
});

const billingColumns = ({ type, recurring }: Billing): Pick<PriceRow, 'type' | 'recurringInterval' | 'recurringIntervalCount'> => ({
  type,
  recurringInterval: recurring?.interval ?? null,
  recurringIntervalCount: recurring?.interval_count ?? null,
});

export const newPrice = (workspaceId: string, body: CreatePriceBody, now: Date): PriceRow => ({
  id: newId(),
  workspaceId,
  productId: body.product,
  nickname: body.nickname ?? null,
  unitAmount: body.unit_amount,
  currency: body.currency,
  ...billingColumns(billingForCreate(body.type, body.recurring)),
  taxRate: body.tax_rate,
  active: true,
  metadata: mergeMetadata({}, body.metadata),
  created: now,
});

/** The fields a PATCH changes; omitted fields keep their values and the product never changes. */
export const priceChanges = (current: PriceRow, patch: UpdatePriceBody): Partial<PriceRow> => ({
  ...(patch.nickname !== undefined ? { nickname: patch.nickname } : {}),
  ...(patch.unit_amount !== undefined ? { unitAmount: patch.unit_amount } : {}),
  ...(patch.currency !== undefined ? { currency: patch.currency } : {}),
  ...(patch.type !== undefined || patch.recurring !== undefined ? billingColumns(billingForUpdate(billingOf(current), patch)) : {}),
  ...(patch.tax_rate !== undefined ? { taxRate: patch.tax_rate } : {}),
  ...(patch.active !== undefined ? { active: patch.active } : {}),
  ...(patch.metadata !== undefined ? { metadata: mergeMetadata(current.metadata, patch.metadata) } : {}),
});

/** DELETE archives: no new invoice line may use the price, and lines that already do keep it. */
export const archivedPrice = (): Pick<PriceRow, 'active'> => ({ active: false });

export const priceView = (row: PriceRow): Price => ({
  id: toPublicId('price', row.id),
  object: 'price',
  livemode: livemodeOf(row.workspaceId),
  product: toPublicId('product', row.productId),
  nickname: row.nickname ?? null,
  unit_amount: row.unitAmount,
  currency: row.currency,
  billing_scheme: 'per_unit',
  ...billingOf(row),
  tax_rate: Number(row.taxRate),
  active: row.active,
  metadata: row.metadata,
  created: row.created.toISOString(),
});
