import { parsePublicId, type Invoice } from '@invoicing/contracts';
import { invalidRequest, notFound, workspaceIdOf, type Caller } from '@invoicing/service-kit';
import type { BillingReader } from '../../shared/billing.ts';
import type { StoredFile, StoredFileCache } from './stored-file-cache.ts';

/** The UUID an invoice's documents are stored under: its `in_` id as billing sent it. */
export const invoiceUuidOf = (invoice: Invoice): string => {
  const uuid = parsePublicId('invoice', invoice.id);
  if (uuid === undefined) throw new Error(`billing sent an invoice id ${invoice.id} that is not an in_ id`);
  return uuid;
};

export interface StoredDocumentOptions<Row extends StoredFile> {
  /** Which document of an invoice this is (`pdf`, `ubl-en16931`, ...): with the invoice, its key in `cache`. */
  kind: string;
  /** The stored row, bytes included, if this workspace's invoice has one. */
  find: (workspaceId: string, invoiceId: string) => Promise<Row | null>;
  /** Stores the row unless one is stored already (a concurrent render won); reports whether it stored. */
  addIfAbsent: (row: Row) => Promise<boolean>;
  /** Makes the document of a finalized invoice, as the row to store; throws a 400 when the invoice cannot have it. */
  render: (workspaceId: string, invoice: Invoice) => Promise<Row>;
  /** Rows held in memory; default: none. */
  cache?: StoredFileCache<Row>;
}

/**
 * One document of finalized invoices (the PDF, one e-invoice export), made once and stored: served
 * as stored, from memory or PostgreSQL, and rendered and stored on first need. Two renders that
 * race store one row, and the later one answers with it.
 */
export const storedDocument = <Row extends StoredFile>({ kind, find, addIfAbsent, render, cache }: StoredDocumentOptions<Row>) => {
  const keyOf = (invoiceId: string) => `${invoiceId}/${kind}`;

  /** The stored document of the workspace's invoice, from memory or PostgreSQL. */
  const stored = async (workspaceId: string, invoiceId: string): Promise<Row | undefined> => {
    const cached = cache?.get(keyOf(invoiceId));
    if (cached) return cached.workspaceId === workspaceId ? cached : undefined;
    const row = await find(workspaceId, invoiceId);
    if (row) cache?.put(keyOf(invoiceId), row);
    return row ?? undefined;
  };

  /** Renders the document and stores it, or returns what a concurrent render stored first. */
  const store = async (workspaceId: string, invoice: Invoice): Promise<Row> => {
    const rendered = await render(workspaceId, invoice);
    const row = (await addIfAbsent(rendered)) ? rendered : (await find(workspaceId, rendered.invoiceId))!;
    cache?.put(keyOf(row.invoiceId), row);
    return row;
  };

  return {
    stored,
    store,
    /** The document in memory, whichever workspace it belongs to (the caller checks), or undefined. */
    cached: (invoiceId: string): Row | undefined => cache?.get(keyOf(invoiceId)),
    /** The document of a finalized invoice found by other means (its public link, its event): stored, or made now. */
    forInvoice: async (workspaceId: string, invoice: Invoice): Promise<Row> => (await stored(workspaceId, invoiceUuidOf(invoice))) ?? store(workspaceId, invoice),
  };
};
export type StoredDocument<Row extends StoredFile> = ReturnType<typeof storedDocument<Row>>;

/**
 * `GET /api/v1/invoices/:id/...`: the document of the caller's invoice. Not stored yet (its
 * finalization event is still on its way, or it was not ready then), billing says whether the
 * invoice exists and is finalized; a draft has none (`draftLacks`: 'a PDF', 'e-invoices').
 */
export const documentForCaller = async <Row extends StoredFile>(
  document: StoredDocument<Row>,
  { billing, caller, id, draftLacks }: { billing: BillingReader; caller: Caller; id: string; draftLacks: string },
): Promise<Row> => {
  const workspaceId = workspaceIdOf(caller);
  const invoiceId = parsePublicId('invoice', id);
  if (invoiceId === undefined) throw notFound('invoice', id);
  const found = await document.stored(workspaceId, invoiceId);
  if (found) return found;
  const invoice = await billing.invoice(caller, id);
  if (invoice === undefined) throw notFound('invoice', id);
  if (invoice.status === 'draft') throw invalidRequest(`Invoice ${id} is a draft: it has ${draftLacks} once finalized.`);
  return document.store(workspaceId, invoice);
};
