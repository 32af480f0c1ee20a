import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { InvoicingClient } from '@invoicing/client';
import { dutchCamt053V02, ubsCamt054V08, type Credit } from '../../../services/billing/test/support/camt-samples.ts';
import type { WebhookReceiver } from './webhook-receiver.ts';

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A write retried as a careful client retries it while processes die: the same Idempotency-Key
 * every time, until an answer that is not a lost connection, a 503 or a key still in use (at most
 * 60 s). Answers the final status and body.
 */
export const untilAnswered = async (send: (key: string) => Promise<Response>): Promise<{ status: number; body: any }> => {
  const key = randomUUID();
  const deadline = Date.now() + 60_000;
  for (;;) {
    const answer = await send(key).then(
      async (response) => ({ status: response.status, body: (await response.json().catch(() => undefined)) as any }),
      () => ({ status: 0, body: undefined as any }),
    );
    const retry = answer.status === 0 || answer.status === 503 || answer.status === 502 || (answer.status === 409 && answer.body?.code === 'idempotency_key_in_use');
    if (!retry || Date.now() > deadline) return answer;
    await delay(200);
  }
};

/** A statement for the invoices given, `parts` credits of equal size each, in the shape of a Dutch bank's camt.053 or a UBS batch. */
export const statementFor = (invoices: readonly { number: string; total: number }[], parts: number, shape: 'dutch' | 'ubs', batch: string) => {
  const credits: Credit[] = invoices.flatMap(({ number, total }) =>
    Array.from({ length: parts }, (_, part) => ({
      amount: (total / parts / 100).toFixed(2),
      currency: 'EUR',
      // As typed by people: lower case, spaces for separators.
      remittance: `${number.toLowerCase().replaceAll('/', ' ')} part ${part + 1}`,
      // The bank's reference of each transfer, whichever statement reports it.
      reference: `TRF-${number.replaceAll('/', '')}-${part}`,
    })),
  );
  return shape === 'dutch' ? dutchCamt053V02('DE89370400440532013000', credits, batch) : ubsCamt054V08('DE89370400440532013000', credits, batch);
};

/** One scenario's payments reconciled against billing's tables and the webhooks received. */
export interface PaymentFigures {
  invoices: number;
  paid: number;
  /** Payments recorded, and what the scenario meant to record. */
  payments: number;
  expectedPayments: number;
  /** Σ payment amounts and Σ amount_paid over the invoices, from the API. */
  sumPayments: number;
  sumAmountPaid: number;
  /** Invoices whose payments do not add up to their amount_paid. */
  mismatched: number;
  /** Distinct invoice.paid event ids in billing's outbox and at the receiver, per paid invoice. */
  paidEventsInOutbox: number;
  paidWithSeveralEvents: number;
  paidEventsDelivered: number;
  paymentRecordedEvents: number;
  /** Statement entries, by status, over every import. */
  entries: Record<string, number>;
}

export const reconcilePayments = async ({
  api,
  invoiceIds,
  expectedPayments,
  databaseUrl,
  workspaceId,
  receiver,
  endpointPath,
}: {
  api: InvoicingClient;
  invoiceIds: readonly string[];
  expectedPayments: number;
  databaseUrl: string;
  workspaceId: string;
  receiver: WebhookReceiver;
  endpointPath: string;
}): Promise<PaymentFigures> => {
  let payments = 0;
  let sumPayments = 0;
  let sumAmountPaid = 0;
  let mismatched = 0;
  let paid = 0;
  for (const id of invoiceIds) {
    const invoice = (await api.GET('/api/v1/invoices/{id}', { params: { path: { id } } })).data!.data;
    const list = (await api.GET('/api/v1/invoices/{id}/payments', { params: { path: { id } } })).data!.data;
    const sum = list.reduce((total, payment) => total + payment.amount, 0);
    payments += list.length;
    sumPayments += sum;
    sumAmountPaid += invoice.amount_paid;
    if (sum !== invoice.amount_paid) mismatched += 1;
    if (invoice.status === 'paid') paid += 1;
  }
  const database = new pg.Client({ connectionString: databaseUrl });
  await database.connect();
  try {
    const events = await database.query<{ subject: string; invoice: string; count: string }>(
      `select subject, envelope->'data'->'object'->>'id' as invoice, count(distinct id) as count from billing.outbox
       where envelope->>'workspace_id' = $1 and subject in ('billing.invoice.paid', 'billing.invoice.payment_recorded') group by 1, 2`,
      [workspaceId],
    );
    const paidEvents = events.rows.filter((row) => row.subject === 'billing.invoice.paid');
    const entries = await database.query<{ status: string; count: string }>('select status, count(*) as count from billing.bank_statement_entries where workspace_id = $1 group by 1', [workspaceId]);
    // Deliveries may still be on their way: wait until each paid invoice's event has arrived (60 s at most).
    const deadline = Date.now() + 60_000;
    const delivered = () => new Set([...receiver.countsAt(endpointPath).firstDeliveries.values()].filter((delivery) => delivery.type === 'invoice.paid').map((delivery) => delivery.invoiceId));
    while (delivered().size < paidEvents.length && Date.now() < deadline) await delay(250);
    return {
      invoices: invoiceIds.length,
      paid,
      payments,
      expectedPayments,
      sumPayments,
      sumAmountPaid,
      mismatched,
      paidEventsInOutbox: paidEvents.length,
      paidWithSeveralEvents: paidEvents.filter((row) => Number(row.count) > 1).length,
      paidEventsDelivered: [...receiver.countsAt(endpointPath).firstDeliveries.values()].filter((delivery) => delivery.type === 'invoice.paid').length,
      paymentRecordedEvents: events.rows.filter((row) => row.subject === 'billing.invoice.payment_recorded').reduce((total, row) => total + Number(row.count), 0),
      entries: Object.fromEntries(entries.rows.map((row) => [row.status, Number(row.count)])),
    };
  } finally {
    await database.end();
  }
};

export const formatPaymentFigures = (scenario: string, f: PaymentFigures, extra = '') =>
  `[fault] ${scenario}: invoices=${f.invoices} paid=${f.paid} payments=${f.payments}/${f.expectedPayments} sum_payments=${f.sumPayments} sum_amount_paid=${f.sumAmountPaid} ` +
  `mismatched=${f.mismatched} paid_events=${f.paidEventsInOutbox} paid_with_several_events=${f.paidWithSeveralEvents} paid_delivered=${f.paidEventsDelivered} ` +
  `payment_recorded_events=${f.paymentRecordedEvents} entries=${JSON.stringify(f.entries)}${extra}`;
