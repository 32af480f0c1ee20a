import pg from 'pg';
import type { Invoice, InvoicingClient } from '@invoicing/client';
import { indexFromNotes, type LifecycleRun } from './lifecycles.ts';
import type { WebhookReceiver } from './webhook-receiver.ts';

/** One scenario's count of what exists against what was asked for. */
export interface Figures {
  scenario: string;
  requested: number;
  /** Logical invoices (distinct marks) that exist. */
  existing: number;
  /** Invoices beyond the first for the same mark. */
  duplicates: number;
  /** Logical invoices whose create was answered with success but that do not exist, or never created. */
  missing: number;
  /** Sequence values in 1..N that no finalized invoice holds. */
  numberGaps: number;
  /** Numbers held by more than one invoice. */
  duplicateNumbers: number;
  numberingVerified: boolean;
  /** Distinct invoice.paid event ids at the receiver. */
  events: number;
  /** Paid invoices with no invoice.paid event, and with more than one distinct event id. */
  paidWithoutEvent: number;
  paidWithSeveralEvents: number;
  redeliveries: number;
  /** Finalized invoices whose PDF answered 200 application/pdf, and PDFs documents stored. */
  pdfs: number;
  pdfsStored: number;
  finalized: number;
  paid: number;
  /** Lifecycles whose three steps all succeeded for the client. */
  completed: number;
  clientErrors: number;
  durationMs: number;
  /** From the end of the run until every event and PDF was there (or the wait gave up). */
  settleMs: number;
}

export const formatFigures = (f: Figures): string =>
  `[fault] ${f.scenario}: requested=${f.requested} existing=${f.existing} duplicates=${f.duplicates} missing=${f.missing} ` +
  `number_gaps=${f.numberGaps} duplicate_numbers=${f.duplicateNumbers} numbering_verified=${f.numberingVerified} ` +
  `events=${f.events} paid=${f.paid} paid_without_event=${f.paidWithoutEvent} paid_with_several_events=${f.paidWithSeveralEvents} ` +
  `redeliveries=${f.redeliveries} pdfs=${f.pdfs}/${f.finalized} pdfs_stored=${f.pdfsStored} completed=${f.completed} ` +
  `client_errors=${f.clientErrors} duration=${(f.durationMs / 1000).toFixed(1)}s settled_after=${(f.settleMs / 1000).toFixed(1)}s`;

export const listAllInvoices = async (api: InvoicingClient): Promise<Invoice[]> => {
  const invoices: Invoice[] = [];
  let cursor: string | undefined;
  do {
    const page = await api.GET('/api/v1/invoices', { params: { query: { limit: 100, ...(cursor ? { cursor } : {}) } } });
    if (!page.data) throw new Error(`Listing invoices answered ${page.response.status}: ${JSON.stringify(page.error)}`);
    invoices.push(...page.data.data);
    cursor = page.data.next_cursor ?? undefined;
  } while (cursor);
  return invoices;
};

/** The sequence of a number in the default format `INV/{YYYY}/{SEQ:4}`: its last run of digits. */
export const sequenceOf = (number: string): number => Number(/(\d+)$/.exec(number)?.[1] ?? Number.NaN);

const waitUntil = async (condition: () => Promise<boolean> | boolean, timeoutMs: number): Promise<boolean> => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return true;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return condition();
};

const countStoredPdfs = async (databaseUrl: string, workspaceId: string): Promise<number> => {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ count: string }>('select count(*) from documents.invoice_pdfs where workspace_id = $1', [workspaceId]);
    return Number(rows[0]?.count ?? 0);
  } finally {
    await client.end();
  }
};

/** Fetches each finalized invoice's PDF through the API, `parallel` at a time; counts the good ones. */
const countServedPdfs = async (api: InvoicingClient, ids: string[], parallel = 6): Promise<number> => {
  let good = 0;
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      const pdf = await api.GET('/api/v1/invoices/{id}/pdf', { params: { path: { id } }, parseAs: 'arrayBuffer' });
      if (pdf.response.status === 200 && pdf.response.headers.get('content-type')?.startsWith('application/pdf')) good += 1;
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return good;
};

/**
 * Counts, over the public API (and documents' table for stored PDFs), what a run left behind in
 * its workspace: each logical invoice once, numbers 1..N without a gap, one invoice.paid event id
 * per paid invoice at the receiver, a PDF per finalized invoice. Waits (up to `settleMs`) for
 * events and PDFs that are still on their way, then a little more so late duplicates show.
 */
export const reconcile = async ({
  scenario,
  api,
  marker,
  requested,
  run,
  receiver,
  endpointPath,
  databaseUrl,
  workspaceId,
  settleMs = 120_000,
}: {
  scenario: string;
  api: InvoicingClient;
  marker: string;
  requested: number;
  run: LifecycleRun;
  receiver: WebhookReceiver;
  endpointPath: string;
  databaseUrl: string;
  workspaceId: string;
  settleMs?: number;
}): Promise<Figures> => {
  const invoices = (await listAllInvoices(api)).filter((invoice) => indexFromNotes(marker, invoice.notes) !== undefined);
  const byMark = new Map<number, Invoice[]>();
  for (const invoice of invoices) {
    const index = indexFromNotes(marker, invoice.notes)!;
    byMark.set(index, [...(byMark.get(index) ?? []), invoice]);
  }
  const finalized = invoices.filter((invoice) => invoice.number !== null);
  const paid = invoices.filter((invoice) => invoice.status === 'paid');

  const sequences = finalized.map((invoice) => sequenceOf(invoice.number!));
  const distinctSequences = new Set(sequences);
  let numberGaps = 0;
  for (let sequence = 1; sequence <= Math.max(0, ...sequences); sequence += 1) if (!distinctSequences.has(sequence)) numberGaps += 1;
  const verification = await api.GET('/api/v1/numbering/verify', {});
  const numberingVerified = verification.data?.data.verified === true && verification.data.data.invoices_checked === finalized.length;

  const settleStart = Date.now();
  const paidIds = new Set(paid.map((invoice) => invoice.id));
  const paidEventsOf = () => {
    const counts = receiver.countsAt(endpointPath);
    const eventIdsByInvoice = new Map<string, Set<string>>();
    for (const delivery of counts.firstDeliveries.values()) {
      if (delivery.type !== 'invoice.paid') continue;
      eventIdsByInvoice.set(delivery.invoiceId, (eventIdsByInvoice.get(delivery.invoiceId) ?? new Set()).add(delivery.eventId));
    }
    return { counts, eventIdsByInvoice };
  };
  await waitUntil(() => [...paidIds].every((id) => paidEventsOf().eventIdsByInvoice.has(id)), settleMs);
  await waitUntil(async () => (await countStoredPdfs(databaseUrl, workspaceId)) >= finalized.length, settleMs);
  const settledMs = Date.now() - settleStart;
  // Late duplicates (a redelivered event under a new id, a second render) get a moment to show.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const { counts, eventIdsByInvoice } = paidEventsOf();
  const pdfsStored = await countStoredPdfs(databaseUrl, workspaceId);

  const everyPaidEventId = [...eventIdsByInvoice.values()].reduce((sum, ids) => sum + ids.size, 0);
  return {
    scenario,
    requested,
    existing: byMark.size,
    duplicates: invoices.length - byMark.size,
    missing: requested - byMark.size,
    numberGaps,
    duplicateNumbers: sequences.length - distinctSequences.size,
    numberingVerified,
    events: everyPaidEventId,
    paidWithoutEvent: [...paidIds].filter((id) => !eventIdsByInvoice.has(id)).length,
    paidWithSeveralEvents: [...eventIdsByInvoice.values()].filter((ids) => ids.size > 1).length,
    redeliveries: counts.redeliveries,
    pdfs: await countServedPdfs(api, finalized.map((invoice) => invoice.id)),
    pdfsStored,
    finalized: finalized.length,
    paid: paid.length,
    completed: run.outcomes.filter((outcome) => outcome.paid).length,
    clientErrors: run.errors.length,
    durationMs: run.durationMs,
    settleMs: settledMs,
  };
};
