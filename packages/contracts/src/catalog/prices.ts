import { z } from 'zod';
import { BooleanQuery, dataOf, Livemode, Metadata, MetadataFilterQuery, MetadataInput, MinorAmount, OPTIONAL_TEXT_RULE, optionalText, pageOf, PageQuery, Timestamp } from '../common.ts';
import { CurrencyCode } from '../currencies.ts';
import { IdPathParams, idReference } from '../ids.ts';
import { defineOperation } from '../operation.ts';

export const PRICE_TYPES = ['one_time', 'recurring'] as const;
export const PriceType = z.enum(PRICE_TYPES).meta({ id: 'PriceType', description: '`one_time` or `recurring`.' });
export type PriceType = z.infer<typeof PriceType>;

export const RECURRING_INTERVALS = ['day', 'week', 'month', 'year'] as const;
export const RECURRING_INTERVAL_COUNT_MAX = 52;
export const RecurringInterval = z.enum(RECURRING_INTERVALS).meta({ id: 'RecurringInterval' });
export const TAX_RATE_DECIMALS = 4;
export const NICKNAME_MAX = 250;

/** How often a recurring price bills. */
export const Recurring = z
  .object({
    interval: RecurringInterval,
    interval_count: z.int().describe('Intervals between billings, 1 to 52.'),
  })
  .meta({ id: 'Recurring' });
export type Recurring = z.infer<typeof Recurring>;

/** An amount in one currency attached to a product; invoice lines take amount, currency and tax rate from it. */
export const Price = z
  .object({
    id: z.string().meta({ example: 'price_0190f3e2c1b27a8e9d1f3c4b5a697887' }),
    object: z.literal('price'),
    livemode: Livemode,
    product: z.string().describe('The `prod_` ID of the parent product; never changes.').meta({ example: 'prod_0190f3e2c1b27a8e9d1f3c4b5a697887' }),
    nickname: z.string().nullable().describe('Internal label, hidden from customers.'),
    unit_amount: z.int().describe('Minor units of `currency`; non-negative.'),
    currency: z.string().describe('Three-letter ISO 4217 code, uppercase.').meta({ example: 'USD' }),
    billing_scheme: z.literal('per_unit').describe('Always `per_unit`: tiered and volume billing are unsupported.'),
    type: PriceType,
    recurring: Recurring.nullable().describe('Set when `type` is `recurring`, null when `one_time`.'),
    tax_rate: z.number().describe('Percentage, 0 to 100: 8.5 means 8.5 percent.'),
    active: z.boolean().describe('True while the price can be put on new invoice lines.'),
    metadata: Metadata,
    created: Timestamp,
  })
  .meta({ id: 'Price' });
export type Price = z.infer<typeof Price>;

const RecurringInput = z
  .strictObject({
    interval: RecurringInterval.describe('`day`, `week`, `month` or `year`.'),
    interval_count: z
      .int()
      .min(1)
      .max(RECURRING_INTERVAL_COUNT_MAX)
      .default(1)
      .describe(`Intervals between billings, 1 to ${RECURRING_INTERVAL_COUNT_MAX}; default 1.`),
  })
  .meta({ id: 'RecurringInput' });
export type RecurringInput = z.infer<typeof RecurringInput>;

const unitAmount = MinorAmount.describe('Minor units of `currency`; a non-negative integer up to 2^53 - 1.');
const taxRate = z
  .number()
  .min(0)
  .max(100)
  .multipleOf(10 ** -TAX_RATE_DECIMALS)
  .describe(`Percentage 0 to 100 with at most ${TAX_RATE_DECIMALS} decimals: 8.5 means 8.5 percent.`);
const nickname = optionalText(NICKNAME_MAX).describe(`Internal label, hidden from customers. ${OPTIONAL_TEXT_RULE}`);

/** `recurring` goes with `type` (the catalog's billingForCreate): required for `recurring`, absent or null for `one_time`. */
const RECURRING_MATCHES_TYPE = {
  if: { required: ['type'], properties: { type: { const: 'recurring' } } },
  then: { required: ['recurring'], properties: { recurring: { type: 'object' } } },
  else: { properties: { recurring: { type: 'null' } } },
};

export const CreatePriceBody = z
  .strictObject({
    product: idReference('product').describe('The `prod_` ID (or UUID) of a product in the workspace.'),
    unit_amount: unitAmount,
    currency: CurrencyCode,
    type: PriceType.default('one_time').describe('Default `one_time`.'),
    recurring: RecurringInput.nullable()
      .optional()
      .describe('Required when `type` is `recurring`; absent or null when `one_time`.'),
    tax_rate: taxRate.default(0).describe('Percentage 0 to 100; default 0.'),
    nickname: nickname.optional(),
    metadata: MetadataInput.optional(),
  })
  .meta({ id: 'CreatePriceBody', allOf: [RECURRING_MATCHES_TYPE] });
export type CreatePriceBody = z.infer<typeof CreatePriceBody>;

export const UpdatePriceBody = z
  .strictObject({
    product: z
      .never({ error: 'cannot change after creation; create a new price and archive this one' })
      .optional()
      .describe('Not accepted: a price stays on its product.'),
    nickname: nickname.optional(),
    unit_amount: unitAmount.optional(),
    currency: CurrencyCode.optional(),
    type: PriceType.optional().describe('Changing it needs a matching `recurring` (an object for `recurring`, absent or null for `one_time`).'),
    recurring: RecurringInput.nullable().optional().describe('Replaces the schedule of a recurring price as a whole.'),
    tax_rate: taxRate.optional(),
    active: z.boolean().optional().describe('False archives the price, true reactivates it.'),
    metadata: MetadataInput.optional(),
  })
  .meta({ id: 'UpdatePriceBody', allOf: [{ if: { required: ['type'], properties: { type: { const: 'one_time' } } }, then: { properties: { recurring: { type: 'null' } } } }] });
export type UpdatePriceBody = z.infer<typeof UpdatePriceBody>;

export const ListPricesQuery = z.strictObject({
  ...PageQuery.shape,
  product: idReference('product').optional().describe('Only prices of this product (`prod_` ID or UUID).'),
  active: BooleanQuery.optional().describe('`true`: active prices only; `false`: archived only; omitted: both.'),
  currency: CurrencyCode.optional().describe('Only prices in this currency (any case).'),
  type: PriceType.optional().describe('Only prices of this type.'),
  ...MetadataFilterQuery.shape,
});
export type ListPricesQuery = z.infer<typeof ListPricesQuery>;

const tag = 'Prices';
const service = 'catalog';

export const listPrices = defineOperation({
  operationId: 'listPrices',
  summary: 'List prices, newest first',
  tag, service, method: 'GET', path: '/api/v1/prices', scope: 'products:read', idempotency: 'none',
  query: ListPricesQuery,
  responses: { 200: { description: 'A page of prices.', schema: pageOf(Price) } },
});

export const createPrice = defineOperation({
  operationId: 'createPrice',
  summary: 'Create a price for a product',
  tag, service, method: 'POST', path: '/api/v1/prices', scope: 'products:write', idempotency: 'optional',
  body: CreatePriceBody,
  errors: [404],
  responses: { 201: { description: 'The new price.', schema: dataOf(Price) } },
});

export const retrievePrice = defineOperation({
  operationId: 'retrievePrice',
  summary: 'Retrieve a price, also when archived',
  tag, service, method: 'GET', path: '/api/v1/prices/:id', scope: 'products:read', idempotency: 'none',
  params: IdPathParams,
  responses: { 200: { description: 'The price.', schema: dataOf(Price) } },
});

export const updatePrice = defineOperation({
  operationId: 'updatePrice',
  summary: 'Update a price',
  description: 'Omitted fields keep their values. `product` cannot change: create a new price and archive this one.',
  tag, service, method: 'PATCH', path: '/api/v1/prices/:id', scope: 'products:write', idempotency: 'optional',
  params: IdPathParams,
  body: UpdatePriceBody,
  responses: { 200: { description: 'The updated price.', schema: dataOf(Price) } },
});

export const archivePrice = defineOperation({
  operationId: 'archivePrice',
  summary: 'Archive a price',
  description: 'Sets `active` to false; invoice lines that already use it are unaffected.',
  tag, service, method: 'DELETE', path: '/api/v1/prices/:id', scope: 'products:write', idempotency: 'optional',
  params: IdPathParams,
  responses: { 200: { description: 'The price with `active` false.', schema: dataOf(Price) } },
});

export const priceOperations = [listPrices, createPrice, retrievePrice, updatePrice, archivePrice];
