import {
  DEFAULT_UNIT_CODE,
  defaultTaxCategory,
  parsePublicId,
  taxCategoryIssues,
  toPublicId,
  type Customer,
  type InvoiceItemInput,
  type Price,
} from '@invoicing/contracts';
import { invalidRequest, notFound, type FieldIssue } from '@invoicing/service-kit';
import type { Actor } from '../../shared/actor.ts';
import type { CatalogReader } from '../../shared/catalog.ts';
import { toLineDiscount, type LineDraft } from './invoice.domain.ts';
import { normalizeDecimal } from './invoice-totals.domain.ts';

/** The customer an invoice names; one the catalog does not know in the workspace is a 404. */
export const requireCustomer = async (catalog: CatalogReader, actor: Actor, customerId: string): Promise<Customer> => {
  const customer = await catalog.customer(actor, customerId);
  if (!customer) throw notFound('customer', toPublicId('customer', customerId));
  return customer;
};

/**
 * The customers of drafts as the catalog has them now, for their e-invoice readiness: each ID read
 * once, all at once; null for one that could not be read (the catalog unavailable, or no such
 * customer), since reading a draft must not fail for its readiness.
 */
export const customersNow = async (catalog: CatalogReader, actor: Actor, customerIds: Iterable<string>): Promise<Map<string, Customer | null>> => {
  const ids = [...new Set(customerIds)];
  const read = await Promise.allSettled(ids.map((id) => catalog.customer(actor, id)));
  return new Map(ids.map((id, index) => {
    const result = read[index]!;
    return [id, result.status === 'fulfilled' ? (result.value ?? null) : null];
  }));
};

/**
 * A deleted customer cannot be put on an invoice, as an archived price cannot go on a new line; a
 * draft that named it before it was deleted keeps it (and finalizes with it).
 */
export const refuseDeletedCustomer = (customer: Customer): void => {
  if (customer.deleted) {
    throw invalidRequest('A deleted customer cannot be put on an invoice.', [{ path: 'customer', message: `${customer.id} is deleted and cannot be put on an invoice` }]);
  }
};

interface CatalogPrice {
  price: Price;
  productName: string;
}

const lookUpPrice = async (catalog: CatalogReader, actor: Actor, priceId: string): Promise<CatalogPrice> => {
  const price = await catalog.price(actor, priceId);
  const product = price && (await catalog.product(actor, price.product));
  if (!price || !product) throw notFound('price', toPublicId('price', priceId));
  return { price, productName: product.name };
};

/** A line's unit and VAT category as sent, or their defaults for its rate. */
const taxFieldsOf = (item: InvoiceItemInput, taxRate: number) => ({
  unitCode: item.unit_code ?? DEFAULT_UNIT_CODE,
  taxCategory: item.tax_category ?? defaultTaxCategory(taxRate),
  taxExemptionReason: item.tax_exemption_reason ?? null,
  taxExemptionReasonCode: item.tax_exemption_reason_code ?? null,
});

/** What a line takes as sent on any line: its exact quantity (BT-129, default 1) and price base (BT-149), discount, period and item terms. */
const commonFieldsOf = (item: InvoiceItemInput) => ({
  quantity: normalizeDecimal(item.quantity_decimal ?? item.quantity ?? 1),
  priceBaseQuantity: normalizeDecimal(item.price_base_quantity ?? '1'),
  discount: toLineDiscount(item.discount),
  period: item.period ?? null,
  sku: item.sku ?? null,
  standardId: item.standard_id ?? null,
  standardIdScheme: item.standard_id_scheme ?? null,
  note: item.note ?? null,
});

/**
 * The VAT category rules of a catalog line, once its price's rate is known. A VATEX code satisfies
 * the need for an exemption reason as the text does; one sent where none belongs is named itself.
 */
const catalogTaxIssues = (taxFields: ReturnType<typeof taxFieldsOf>, taxRate: number) =>
  taxCategoryIssues({ taxCategory: taxFields.taxCategory, taxRate, taxExemptionReason: taxFields.taxExemptionReason ?? taxFields.taxExemptionReasonCode }).map((issue) =>
    issue.field === 'tax_exemption_reason' && taxFields.taxExemptionReason == null && taxFields.taxExemptionReasonCode != null ? { ...issue, field: 'tax_exemption_reason_code' } : issue,
  );

/**
 * Turns the items sent into line drafts. Catalog items take unit amount, tax rate and (unless
 * overridden) the product's name from the catalog; every item is a new line, so an archived price
 * is refused, as is a price in another currency than the invoice. A catalog line's VAT category is
 * checked against its price's rate here (an ad-hoc line's was checked with the body).
 */
export const resolveItems = async (
  catalog: CatalogReader,
  actor: Actor,
  items: readonly InvoiceItemInput[],
  currency: string,
  path = 'items',
): Promise<LineDraft[]> => {
  const priceIds = [...new Set(items.flatMap((item) => (item.price ? [item.price] : [])))];
  const prices = new Map(await Promise.all(priceIds.map(async (id) => [id, await lookUpPrice(catalog, actor, id)] as const)));
  const issues: FieldIssue[] = [];
  const drafts = items.map((item, index): LineDraft => {
    const common = commonFieldsOf(item);
    const catalogPrice = item.price ? prices.get(item.price) : undefined;
    if (!catalogPrice) {
      const taxRate = item.tax_rate ?? 0;
      return { ...common, ...taxFieldsOf(item, taxRate), priceId: null, productId: null, description: item.description ?? '', unitAmount: normalizeDecimal(item.unit_amount_decimal ?? item.unit_amount ?? 0), taxRate };
    }
    const { price, productName } = catalogPrice;
    if (!price.active) issues.push({ path: `${path}.${index}.price`, message: `${price.id} is archived and cannot go on a new line` });
    if (price.currency !== currency) issues.push({ path: `${path}.${index}.price`, message: `${price.id} is in ${price.currency}, the invoice in ${currency}` });
    const taxFields = taxFieldsOf(item, price.tax_rate);
    for (const issue of catalogTaxIssues(taxFields, price.tax_rate)) {
      issues.push({ path: `${path}.${index}.${issue.field}`, message: `${issue.message} (the rate of ${price.id})` });
    }
    return {
      ...common,
      ...taxFields,
      priceId: item.price ?? null,
      productId: parsePublicId('product', price.product) ?? null,
      description: item.description ?? productName,
      unitAmount: String(price.unit_amount),
      taxRate: price.tax_rate,
    };
  });
  if (issues.length) throw invalidRequest('Some items cannot be priced from the catalog.', issues);
  return drafts;
};
