import { parsePublicId, type MatchBankStatementEntryBody, type PageQuery } from '@invoicing/contracts';
import { invalidState, notFound, type CursorCodec } from '@invoicing/service-kit';
import { newId } from '@invoicing/service-kit/ids';
import type { z } from 'zod';
import type { Actor } from '../../shared/actor.ts';
import { workspaceMoment, type InvoiceDeps } from '../invoices/invoice-deps.ts';
import { recordPaymentsIn, type PaymentAsked } from '../payments/payments.service.ts';
import { asDuplicate, entryRowsOf, entryView, statementSummaryView, statementView } from './bank-statement.domain.ts';
import type { BankStatementEntryRow, BankStatementRow } from './bank-statement.entity.ts';
import { bankStatementRepository } from './bank-statement.repository.ts';
import { assertValidAgainstSchema } from './camt-schema.ts';
import { assertSafeXml, assertWellFormed, messageOf, parseCamt } from './camt.domain.ts';
import { indexInvoices, invoicesNamedIn } from './remittance-matching.domain.ts';

const idOf = (kind: 'bankStatement' | 'bankStatementEntry', publicId: string): string => {
  const id = parsePublicId(kind, publicId);
  if (id === undefined) throw notFound(kind === 'bankStatement' ? 'bank_statement' : 'bank_statement_entry', publicId);
  return id;
};

/**
 * Bank statements (decisions.md, "Payments and bank statements"). An import reads top to bottom:
 * refuse an unsafe document or one that is not well-formed XML, check it against its ISO 20022 schema, read it (nothing is written
 * for a document that fails any of these); then in one transaction: claim each credit's
 * duplicate key (an entry whose key an earlier import holds is a duplicate and pays nothing; one
 * held by an import still running waits for it), write the rest, find the invoice each claimed
 * credit names, record the payments (`recordPaymentsIn`: under the invoices' locks, each for at
 * most what is still to be paid, in the invoice's currency), and mark those entries matched.
 */
export const bankStatementsService = (deps: InvoiceDeps, cursors: CursorCodec) => {
  const statements = bankStatementRepository(deps.em);

  return {
    import: async (actor: Actor, xml: string) => {
      assertSafeXml(xml);
      const message = messageOf(xml);
      assertWellFormed(xml);
      await assertValidAgainstSchema(xml, message);
      const parsed = parseCamt(xml, message);
      const moment = await workspaceMoment(deps, actor);
      const statementId = newId();
      const rows = entryRowsOf(statementId, actor.workspaceId, parsed);

      const { statement, entries } = await deps.em.transactional(async (tx) => {
        const counted = rows.filter((row) => row.dedupKey !== null).sort((a, b) => (a.dedupKey! < b.dedupKey! ? -1 : a.dedupKey! > b.dedupKey! ? 1 : 0));
        const claimed = await statements.claimEntries(tx, counted);
        const entries = new Map<string, BankStatementEntryRow>(rows.map((row) => [row.id, row.dedupKey !== null && !claimed.has(row.id) ? asDuplicate(row) : row]));
        await statements.insertEntries(
          tx,
          [...entries.values()].filter((row) => !claimed.has(row.id)),
        );

        const index = indexInvoices(await statements.openInvoiceKeys(tx, actor.workspaceId));
        const asked: { entry: BankStatementEntryRow; payment: PaymentAsked }[] = [];
        for (const id of claimed) {
          const entry = entries.get(id)!;
          const named = invoicesNamedIn(index, entry.remittanceInformation ?? null);
          // None, or several invoices named: a person decides (match by hand).
          if (named.size !== 1) continue;
          const [invoiceId] = named;
          asked.push({
            entry,
            payment: {
              invoiceId: invoiceId!,
              request: {
                amount: entry.amount,
                currency: entry.currency,
                // Booked on a day still to come where the workspace is: recorded as now.
                paidOn: entry.bookingDate && entry.bookingDate <= moment.local.date ? entry.bookingDate : undefined,
                paymentReference: entry.bankReference ?? null,
                method: 'bank_transfer',
                bankStatementEntryId: entry.id,
              },
            },
          });
        }
        const outcomes = await recordPaymentsIn(tx, actor, asked.map(({ payment }) => payment), moment);
        const matches: { id: string; invoiceId: string; paymentId: string }[] = [];
        outcomes.forEach((outcome, position) => {
          if ('refused' in outcome) return;
          const { entry } = asked[position]!;
          entries.set(entry.id, { ...entry, status: 'matched', invoiceId: outcome.invoice.id, paymentId: outcome.payment.id });
          matches.push({ id: entry.id, invoiceId: outcome.invoice.id, paymentId: outcome.payment.id });
        });
        await statements.markMatched(tx, actor.workspaceId, matches);

        const all = [...entries.values()];
        const statement: BankStatementRow = {
          id: statementId,
          workspaceId: actor.workspaceId,
          accountIban: parsed.accountIban,
          fromDate: parsed.from,
          toDate: parsed.to,
          matchedCount: all.filter((row) => row.status === 'matched').length,
          unmatchedCount: all.filter((row) => row.status === 'unmatched').length,
          createdAt: moment.now,
        };
        await statements.insertStatement(tx, statement);
        return { statement, entries: all };
      });
      deps.announce();
      return { data: statementView(statement, entries) };
    },

    list: async (actor: Actor, query: z.output<typeof PageQuery>) => {
      const pages = cursors.forList('bank_statements', actor.workspaceId);
      const rows = await statements.pageNewestFirst(actor.workspaceId, pages.positionOf(query.cursor), query.limit);
      return pages.toPage(
        rows.map((row) => ({ row, created: row.createdAt, id: row.id })),
        query.limit,
        ({ row }) => statementSummaryView(row),
      );
    },

    retrieve: async (actor: Actor, publicId: string) => {
      const statement = await statements.findInWorkspace(actor.workspaceId, idOf('bankStatement', publicId));
      if (!statement) throw notFound('bank_statement', publicId);
      return { data: statementView(statement, await statements.entriesOf(statement.id)) };
    },

    /** Assigns an unmatched entry to an invoice by hand: the same rules as an import's match. */
    match: (actor: Actor, statementPublicId: string, entryPublicId: string, { invoice: invoiceId }: MatchBankStatementEntryBody) =>
      deps.em.transactional(async (tx) => {
        const entry = await statements.lockEntry(tx, actor.workspaceId, idOf('bankStatement', statementPublicId), idOf('bankStatementEntry', entryPublicId));
        if (!entry) throw notFound('bank_statement_entry', entryPublicId);
        if (entry.status !== 'unmatched') throw invalidState(`This entry is ${entry.status}: only an unmatched entry can be assigned to an invoice.`);
        const moment = await workspaceMoment(deps, actor);
        const [outcome] = await recordPaymentsIn(
          tx,
          actor,
          [
            {
              invoiceId,
              request: {
                amount: entry.amount,
                currency: entry.currency,
                paidOn: entry.bookingDate && entry.bookingDate <= moment.local.date ? entry.bookingDate : undefined,
                paymentReference: entry.bankReference ?? null,
                method: 'bank_transfer',
                bankStatementEntryId: entry.id,
              },
            },
          ],
          moment,
        );
        if ('refused' in outcome!) throw outcome.refused;
        await statements.markMatched(tx, actor.workspaceId, [{ id: entry.id, invoiceId: outcome!.invoice.id, paymentId: outcome!.payment.id }]);
        await statements.countManualMatch(tx, entry.statementId);
        deps.announce();
        return { data: entryView({ ...entry, status: 'matched', invoiceId: outcome!.invoice.id, paymentId: outcome!.payment.id }) };
      }),
  };
};

export type BankStatementsService = ReturnType<typeof bankStatementsService>;
