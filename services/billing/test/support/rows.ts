// Rows as billing stores them, for tests and the committed SQL's examples: fixed ids and amounts,
// one 19 % line of 100.00, each overridable.
import type { InvoiceLineRow } from '../../src/modules/invoices/invoice.entity.ts';

export const EXAMPLE_WORKSPACE = '00000000-0000-4000-8000-000000000001';
export const EXAMPLE_INVOICE = '00000000-0000-4000-8000-000000000002';

export const makeLine = (overrides: Partial<InvoiceLineRow> = {}): InvoiceLineRow => ({
  id: '00000000-0000-4000-8000-000000000004',
  invoiceId: EXAMPLE_INVOICE,
  workspaceId: EXAMPLE_WORKSPACE,
  position: 0,
  priceId: null,
  productId: null,
  description: 'Consulting',
  quantity: 1,
  unitAmount: 10_000,
  discountAmountOff: null,
  discountPercentOff: null,
  discountAmount: 0,
  taxRate: 19,
  amount: 10_000,
  tax: 1_900,
  unitCode: 'C62',
  taxCategory: 'S',
  taxExemptionReason: null,
  periodStart: null,
  periodEnd: null,
  quantityDecimal: '1',
  unitAmountDecimal: '10000',
  priceBaseQuantity: '1',
  taxExemptionReasonCode: null,
  sku: null,
  standardId: null,
  standardIdScheme: null,
  note: null,
  ...overrides,
});
