import { toPublicId, type EventEnvelope, type Invoice } from '@invoicing/contracts';
import { newId } from '@invoicing/service-kit';

const EMPTY_ADDRESS = { line1: null, line2: null, city: null, state: null, postal_code: null, country: null };

/** An open invoice as billing's API returns it, lines included. */
export const makeInvoice = (overrides: Partial<Invoice> = {}): Invoice => ({
  id: `in_${newId().replaceAll('-', '')}`,
  object: 'invoice',
  number: 'INV/2026/0001',
  status: 'open',
  customer: `cus_${newId().replaceAll('-', '')}`,
  customer_name: 'Müller GmbH',
  subscription: null,
  currency: 'EUR',
  collection_method: 'send_invoice',
  issue_date: '2026-11-24',
  due_date: '2026-12-24',
  days_until_due: 30,
  subtotal: 10_000,
  discount_total: 0,
  taxable_amount: 10_000,
  tax_total: 1_900,
  total: 11_900,
  amount_due: 11_900,
  amount_paid: 0,
  notes: null,
  footer: null,
  buyer_reference: null,
  purchase_order: null,
  delivery_date: null,
  tax_breakdown: [{ tax_category: 'S', tax_rate: 19, taxable_amount: 10_000, tax: 1_900, tax_exemption_reason: null }],
  einvoice: null,
  business_snapshot: {
    business_name: 'Acme',
    email: null,
    address: EMPTY_ADDRESS,
    tax_id: null,
    payment_instructions: null,
    brand_color: null,
    phone: null,
    contact_name: null,
    electronic_address: null,
    electronic_address_scheme: null,
    payment_account: null,
  },
  customer_snapshot: { name: 'Müller GmbH', email: null, address: EMPTY_ADDRESS, tax_id: null, electronic_address: null, electronic_address_scheme: null, buyer_reference: null },
  public_url_token: 'tok_abc',
  public_url: 'http://localhost:8080/i/tok_abc',
  finalized_at: '2026-11-24T10:00:00.000Z',
  paid_at: null,
  payment_reference: null,
  voided_at: null,
  void_reason: null,
  snapshot_sha256: null,
  chain_sha256: null,
  created_at: '2026-11-24T09:00:00.000Z',
  updated_at: '2026-11-24T10:00:00.000Z',
  lines: {
    object: 'list',
    data: [
      {
        id: `ii_${newId().replaceAll('-', '')}`,
        object: 'invoiceitem',
        price: null,
        product: null,
        description: 'Consulting',
        quantity: 1,
        unit_amount: 10_000,
        discount: null,
        discount_amount: 0,
        tax_rate: 19,
        amount: 10_000,
        tax: 1_900,
        unit_code: 'C62',
        tax_category: 'S',
        tax_exemption_reason: null,
        period: null,
      },
    ],
  },
  ...overrides,
});

/** A billing event as billing's outbox publishes it. */
export const makeEnvelope = (workspaceId: string, subject: string, invoice: Invoice = makeInvoice(), overrides: Partial<EventEnvelope> = {}): EventEnvelope => ({
  id: newId(),
  type: subject,
  occurred_at: new Date().toISOString(),
  workspace_id: workspaceId,
  correlation_id: `req-${newId()}`,
  idempotency_key: null,
  actor_key_id: null,
  data: { object: invoice },
  ...overrides,
});

/** The `evt_` id the event log and the webhooks give an envelope. */
export const publicEventIdOf = (envelope: EventEnvelope): string => toPublicId('event', envelope.id);
