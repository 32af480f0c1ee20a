import { randomUUID } from 'node:crypto';
import type { InvoicingClient } from '@invoicing/client';

/** A request whose final answer (after the client's own retries) was not a success. */
export interface ClientVisibleError {
  lifecycle: number;
  step: 'create' | 'finalize' | 'pay';
  status: number;
  code: string;
}

export interface LifecycleOutcome {
  index: number;
  invoiceId?: string;
  finalized: boolean;
  paid: boolean;
  /** When the pay answer reached the client (ms since the epoch), to measure webhook latency. */
  paidAt?: number;
}

export interface LifecycleRun {
  outcomes: LifecycleOutcome[];
  errors: ClientVisibleError[];
  durationMs: number;
}

/** The `notes` of logical invoice `index` of a run: how the reconciliation tells duplicates. */
export const markOf = (marker: string, index: number): string => `${marker}#${index}`;

export const indexFromNotes = (marker: string, notes: string | null | undefined): number | undefined => {
  const match = notes?.match(new RegExp(`^${marker}#(\\d+)$`));
  return match ? Number(match[1]) : undefined;
};

const problemCode = (error: unknown): string => (error as { code?: string } | undefined)?.code ?? 'none';

/**
 * One invoice's life as a careful client lives it: create with lines, finalize, pay, each step
 * under its own Idempotency-Key that stays the same for every retry of that step (the client
 * retries lost connections, 503, 429 and a key still in use). A step that still fails ends the
 * lifecycle and is counted as an error the client saw.
 */
const liveOneInvoice = async (api: InvoicingClient, customer: string, marker: string, index: number, errors: ClientVisibleError[]): Promise<LifecycleOutcome> => {
  const outcome: LifecycleOutcome = { index, finalized: false, paid: false };
  const fail = (step: ClientVisibleError['step'], status: number, error: unknown) => {
    errors.push({ lifecycle: index, step, status, code: problemCode(error) });
    return outcome;
  };
  const keys = { create: randomUUID(), finalize: randomUUID(), pay: randomUUID() };
  const created = await api
    .POST('/api/v1/invoices', {
      params: { header: { 'Idempotency-Key': keys.create } },
      body: {
        customer,
        currency: 'EUR',
        notes: markOf(marker, index),
        items: [
          { description: 'Consulting', unit_amount: 12_000, quantity: 2 },
          { description: 'Travel', unit_amount: 4_550, quantity: 1 },
        ],
      },
    })
    .catch((error: unknown) => ({ data: undefined, error, response: { status: 0 } }));
  if (!created.data) return fail('create', created.response.status, created.error);
  const id = created.data.data.id;
  outcome.invoiceId = id;
  const finalized = await api
    .POST('/api/v1/invoices/{id}/finalize', { params: { path: { id }, header: { 'Idempotency-Key': keys.finalize } } })
    .catch((error: unknown) => ({ data: undefined, error, response: { status: 0 } }));
  if (!finalized.data) return fail('finalize', finalized.response.status, finalized.error);
  outcome.finalized = true;
  const paid = await api
    .POST('/api/v1/invoices/{id}/pay', { params: { path: { id }, header: { 'Idempotency-Key': keys.pay } }, body: { payment_reference: `SEPA ${index}` } })
    .catch((error: unknown) => ({ data: undefined, error, response: { status: 0 } }));
  if (!paid.data) return fail('pay', paid.response.status, paid.error);
  outcome.paid = true;
  outcome.paidAt = Date.now();
  return outcome;
};

/**
 * `count` lifecycles by `concurrency` clients at once, each client taking the next index. With
 * `until`, clients stop taking new ones once it settles (so a fault sequence of any length
 * happens during the run), and `paceMs` spaces each client's lifecycles so the run lasts.
 */
export const runLifecycles = async ({
  api,
  customer,
  marker,
  count,
  concurrency,
  until,
  paceMs = 0,
}: {
  api: InvoicingClient;
  customer: string;
  marker: string;
  count: number;
  concurrency: number;
  until?: Promise<unknown>;
  paceMs?: number;
}): Promise<LifecycleRun> => {
  const started = Date.now();
  const outcomes: LifecycleOutcome[] = [];
  const errors: ClientVisibleError[] = [];
  let stopTaking = false;
  void until?.finally(() => (stopTaking = true));
  let next = 0;
  const client = async () => {
    while (next < count && !stopTaking) {
      outcomes.push(await liveOneInvoice(api, customer, marker, next++, errors));
      if (paceMs > 0) await new Promise((resolve) => setTimeout(resolve, paceMs));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, client));
  return { outcomes: outcomes.sort((a, b) => a.index - b.index), errors, durationMs: Date.now() - started };
};

/**
 * Calls `fault` after every pause of `everyMs` (a number, or a function drawing one per round)
 * until `done` settles, at least `minimum` times; returns how often it ran.
 */
export const repeatUntil = async (done: Promise<unknown>, everyMs: number | (() => number), minimum: number, fault: (round: number) => Promise<unknown>): Promise<number> => {
  let finished = false;
  void done.finally(() => (finished = true));
  let rounds = 0;
  while (!finished || rounds < minimum) {
    await new Promise((resolve) => setTimeout(resolve, typeof everyMs === 'number' ? everyMs : everyMs()));
    if (finished && rounds >= minimum) break;
    await fault(rounds);
    rounds += 1;
  }
  return rounds;
};
