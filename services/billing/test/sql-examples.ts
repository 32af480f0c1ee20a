// Billing's repositories, each method called once with fixed arguments, for the committed SQL
// beside each repository (packages/testing/src/committed-sql.ts, `npm run sql:write`).
import { KeyedWrites } from '@invoicing/service-kit';
import type { MikroORM } from '@mikro-orm/postgresql';
import { systemClock } from '@invoicing/service-kit/clock';
import { makeEnvelope } from '@invoicing/service-kit/events/make-envelope';
import { moduleExamples, repositoryExamples, type ServiceSqlExamples } from '@invoicing/testing/committed-sql';
import { BILLING_SCHEMA, openBillingDatabase } from '../src/database.ts';
import { accountRepository } from '../src/modules/account/account.repository.ts';
import type { InvoiceAttachmentRow } from '../src/modules/attachments/attachment.entity.ts';
import { attachmentRepository } from '../src/modules/attachments/attachment.repository.ts';
import { FINALIZED_PROPERTIES, type FinalizedColumns } from '../src/modules/invoices/finalization.domain.ts';
import type { InvoiceRow } from '../src/modules/invoices/invoice.entity.ts';
import { newDraft, totalsColumns } from '../src/modules/invoices/invoice.domain.ts';
import { invoiceRepository } from '../src/modules/invoices/invoice.repository.ts';
import { OverdueSweep } from '../src/modules/invoices/overdue-sweep.ts';
import { messageRepository, type ClaimedMessage } from '../src/modules/messages/message.repository.ts';
import type { MessageRow } from '../src/modules/messages/message.entity.ts';
import { ReminderSweep } from '../src/modules/messages/reminder-sweep.ts';
import { catalogReader } from '../src/shared/catalog.ts';
import { createServiceClient } from '@invoicing/service-kit';
import { numberingRepository } from '../src/modules/numbering/numbering.repository.ts';
import type { TimelineEntryRow } from '../src/modules/timeline/timeline.entity.ts';
import { timelineRepository } from '../src/modules/timeline/timeline.repository.ts';
import { paymentRepository } from '../src/modules/payments/payment.repository.ts';
import type { PaymentRow } from '../src/modules/payments/payment.entity.ts';
import { bankStatementRepository } from '../src/modules/bank-statements/bank-statement.repository.ts';
import type { BankStatementEntryRow, BankStatementRow } from '../src/modules/bank-statements/bank-statement.entity.ts';
import { EXAMPLE_INVOICE, EXAMPLE_WORKSPACE, makeLine } from './support/rows.ts';
import { testClockRepository } from '../src/modules/test-clocks/test-clock.repository.ts';
import type { TestClockRow } from '../src/modules/test-clocks/test-clock.entity.ts';

const WORKSPACE = EXAMPLE_WORKSPACE;
const INVOICE = EXAMPLE_INVOICE;
const CUSTOMER = '00000000-0000-4000-8000-000000000003';
const SUBSCRIPTION = '00000000-0000-4000-8000-00000000000a';
const NOW = new Date('2026-11-26T10:00:00.000Z');
const SERIES = { workspaceId: WORKSPACE, format: 'INV-{YYYY}-{NNNN}', period: '2026' };

const invoice: InvoiceRow = {
  ...newDraft(WORKSPACE, { customer: CUSTOMER, days_until_due: 30, items: [] }, { customerName: 'Müller GmbH', currency: 'EUR', today: '2026-11-26', now: NOW }),
  id: INVOICE,
  ...totalsColumns({ subtotal: 10_000, discountTotal: 0, allowanceTotal: 0, chargeTotal: 0, taxableAmount: 10_000, taxTotal: 1_900, total: 11_900 }),
  amountDue: 11_900,
};

const line = makeLine();

const entry: TimelineEntryRow = {
  id: '00000000-0000-4000-8000-000000000005',
  invoiceId: INVOICE,
  workspaceId: WORKSPACE,
  type: 'created',
  occurredAt: NOW,
  keyId: null,
  requestId: 'req-1',
  details: {},
};

const event = makeEnvelope({ id: '00000000-0000-4000-8000-000000000006', workspace_id: WORKSPACE });
const finalized: InvoiceRow = { ...invoice, status: 'open', number: 'INV-2026-0001', numberFormat: SERIES.format, numberPeriod: SERIES.period, numberSequence: 1 };
const finalizedColumns = Object.fromEntries(FINALIZED_PROPERTIES.map((property) => [property, finalized[property]])) as FinalizedColumns;
const claim = { workspaceId: WORKSPACE, key: 'key-1', fingerprint: 'f'.repeat(64) };
const recorded = { status: 200, contentType: 'application/json; charset=utf-8', body: '{}' };
const payment: PaymentRow = {
  id: '00000000-0000-4000-8000-000000000008',
  workspaceId: WORKSPACE,
  invoiceId: INVOICE,
  amount: 5_000,
  currency: 'EUR',
  paidAt: NOW,
  paymentReference: 'TRX-1',
  method: 'bank_transfer',
  bankStatementEntryId: null,
  createdAt: NOW,
};
const statement: BankStatementRow = {
  id: '00000000-0000-4000-8000-000000000009',
  workspaceId: WORKSPACE,
  accountIban: 'DE89370400440532013000',
  fromDate: '2026-11-20',
  toDate: '2026-11-20',
  matchedCount: 1,
  unmatchedCount: 0,
  createdAt: NOW,
};
const statementEntry: BankStatementEntryRow = {
  id: '00000000-0000-4000-8000-00000000000a',
  statementId: statement.id,
  workspaceId: WORKSPACE,
  position: 0,
  bookingDate: '2026-11-20',
  amount: 5_000,
  currency: 'EUR',
  creditDebit: 'credit',
  remittanceInformation: 'INV-2026-0001',
  counterpartyName: 'Müller GmbH',
  bankReference: 'REF-1',
  status: 'unmatched',
  invoiceId: null,
  paymentId: null,
  dedupKey: '["ref","DE89370400440532013000","REF-1"]',
};
const keyedWrites = (orm: MikroORM) => new KeyedWrites({ orm, schema: BILLING_SCHEMA, ttlHours: 24 });

const MESSAGE = '00000000-0000-4000-8000-000000000008';
const message: MessageRow = {
  id: MESSAGE,
  workspaceId: WORKSPACE,
  invoiceId: INVOICE,
  kind: 'invoice',
  toAddresses: ['billing@mueller.example'],
  ccAddresses: [],
  subject: 'Invoice INV-2026-0001 from Seller GmbH',
  note: null,
  attachmentKinds: ['pdf'],
  attachments: [{ filename: 'Invoice-INV-2026-0001.pdf', content_type: 'application/pdf', size: 0 }],
  reminderOn: null,
  status: 'queued',
  error: null,
  attempts: 0,
  lease: null,
  nextAttemptAt: NOW,
  correlationId: 'req-1',
  sentAt: null,
  createdAt: NOW,
};
const ATTACHMENT = '00000000-0000-4000-8000-00000000000b';
const attachment: InvoiceAttachmentRow = {
  id: ATTACHMENT,
  invoiceId: INVOICE,
  workspaceId: WORKSPACE,
  position: 1,
  filename: 'hours.csv',
  contentType: 'text/csv',
  size: 10,
  sha256: 'a'.repeat(64),
  description: null,
  content: Buffer.from('day,hours\n'),
  createdAt: NOW,
};
const TEST_CLOCK = '00000000-0000-4000-8000-00000000000c';
const testClock: TestClockRow = { id: TEST_CLOCK, workspaceId: WORKSPACE, name: 'Three months', frozenTime: NOW, status: 'ready', advanceTo: null, claimedUntil: null, created: NOW };
const claimedMessage: ClaimedMessage = { ...message, lease: '00000000-0000-4000-8000-000000000009' };

export const BILLING_SQL_EXAMPLES: ServiceSqlExamples = {
  folder: 'services/billing',
  database: { schema: BILLING_SCHEMA, open: openBillingDatabase },
  repositories: [
    repositoryExamples('src/modules/invoices/invoice.repository.sql', 'invoiceRepository (invoice.repository.ts)', invoiceRepository, {
      findWithLinesAndSettings: (invoices) => invoices.findWithLinesAndSettings(WORKSPACE, INVOICE),
      findManyWithLinesAndSettings: (invoices) => invoices.findManyWithLinesAndSettings(WORKSPACE, [INVOICE, '00000000-0000-4000-8000-000000000007']),
      findIssuedByPublicToken: (invoices) => invoices.findIssuedByPublicToken('token'),
      // Unkeyed (a caller inside billing), then keyed, as every request through the gateway is.
      insertDraft: async (invoices, _em, orm) => {
        await invoices.insertDraft(invoice, [line], entry, event);
        return invoices.insertDraft(invoice, [line], entry, event, { writes: keyedWrites(orm), claim, outcome: recorded });
      },
      // A subscription period's draft: unkeyed, then keyed, as the subscriptions service sends it.
      insertPeriodDraft: async (invoices, _em, orm) => {
        // Rows of their own (insertDraft's are there already); the keyed one then meets the period's invoice.
        const periodInvoice = '00000000-0000-4000-8000-00000000000b';
        const periodDraft = { ...invoice, id: periodInvoice, subscriptionId: SUBSCRIPTION, subscriptionPeriodStart: '2026-11-01' };
        const periodLine = { ...line, id: '00000000-0000-4000-8000-00000000000c', invoiceId: periodInvoice };
        const periodEntry = { ...entry, id: '00000000-0000-4000-8000-00000000000d', invoiceId: periodInvoice };
        const periodEvent = makeEnvelope({ id: '00000000-0000-4000-8000-00000000000e', workspace_id: WORKSPACE });
        await invoices.insertPeriodDraft(periodDraft, [periodLine], periodEntry, periodEvent);
        return invoices.insertPeriodDraft(periodDraft, [periodLine], periodEntry, periodEvent, { writes: keyedWrites(orm), claim, outcome: recorded });
      },
      findPeriodInvoiceWithLinesAndSettings: (invoices) => invoices.findPeriodInvoiceWithLinesAndSettings(WORKSPACE, SUBSCRIPTION, '2026-11-01'),
      // Unkeyed (a new public link, inside its keyed write's transaction), then keyed (void, only while unpaid).
      changeWhileStatus: async (invoices, _em, orm) => {
        const voiding = { invoice: { ...finalized, status: 'void' as const, voidedAt: NOW }, properties: ['status', 'voidedAt', 'amountDue', 'updatedAt'] as const, whileStatus: 'open' as const, entry, event };
        await invoices.changeWhileStatus(voiding);
        return invoices.changeWhileStatus({ ...voiding, whileUnpaid: true, outcome: { writes: keyedWrites(orm), claim, outcome: recorded } });
      },
      lockDraftsAndTakeNumbers: (invoices, em) => em.transactional((tx) => invoices.lockDraftsAndTakeNumbers(tx, { series: SERIES, drafts: [{ id: INVOICE, readVersion: NOW }] })),
      writeFinalized: (invoices, em, orm) =>
        em.transactional((tx) =>
          invoices.writeFinalized(tx, {
            series: SERIES,
            invoices: [{ id: finalized.id, columns: finalizedColumns }],
            timeline: [entry],
            events: [{ envelope: event, traceContext: null }],
            chainHead: 'f'.repeat(64),
            outcomes: { writes: keyedWrites(orm), entries: [{ claim, outcome: recorded }] },
          }),
        ),
      findInWorkspace: (invoices) => invoices.findInWorkspace(WORKSPACE, INVOICE),
      findForUpdate: (invoices, em) => em.transactional((tx) => invoices.findForUpdate(tx, WORKSPACE, INVOICE)),
      linesOf: (invoices, em) => invoices.linesOf(em, INVOICE),
      linesOfEach: (invoices) => invoices.linesOfEach([INVOICE]),
      // In a live space, then in a test space with a clock (its invoices are open by the clock's day).
      pageNewestFirst: async (invoices) => {
        await invoices.pageNewestFirst(WORKSPACE, { status: 'open', metadata: { order_id: '6735' }, today: '2026-11-26' }, { created: NOW, id: INVOICE }, 10);
        return invoices.pageNewestFirst(WORKSPACE, { status: 'overdue', today: '2026-11-26', clockTodays: new Map([['00000000-0000-4000-8000-00000000000c', '2027-02-01']]) }, { created: NOW, id: INVOICE }, 10);
      },
      pageNewestFirstSql: () => undefined,
      replaceLines: (invoices, em) => em.transactional((tx) => invoices.replaceLines(tx, INVOICE, [line])),
      dropCatalogLines: (invoices, em) => em.transactional((tx) => invoices.dropCatalogLines(tx, INVOICE)),
      remove: (invoices, em) => em.transactional((tx) => invoices.remove(tx, invoice)),
    }),
    repositoryExamples('src/modules/payments/payment.repository.sql', 'paymentRepository (payment.repository.ts)', paymentRepository, {
      lockInvoices: (payments, em) => em.transactional((tx) => payments.lockInvoices(tx, WORKSPACE, [INVOICE])),
      record: (payments, em) =>
        em.transactional((tx) =>
          payments.record(tx, {
            workspaceId: WORKSPACE,
            invoices: [{ id: INVOICE, columns: { status: 'paid', amountDue: 0, amountPaid: 11_900, paidAt: NOW, paymentReference: 'TRX-1', updatedAt: NOW } }],
            payments: [payment],
            timeline: [{ ...entry, type: 'paid', details: { paid_on: '2026-11-26', payment_reference: 'TRX-1' } }],
            events: [{ envelope: event, traceContext: null }],
          }),
        ),
      ofInvoice: (payments) => payments.ofInvoice(INVOICE),
    }),
    repositoryExamples('src/modules/bank-statements/bank-statement.repository.sql', 'bankStatementRepository (bank-statement.repository.ts)', bankStatementRepository, {
      claimEntries: (statements, em) => em.transactional((tx) => statements.claimEntries(tx, [statementEntry])),
      insertEntries: (statements, em) => em.transactional((tx) => statements.insertEntries(tx, [{ ...statementEntry, status: 'duplicate', dedupKey: null }])),
      markMatched: (statements, em) => em.transactional((tx) => statements.markMatched(tx, WORKSPACE, [{ id: statementEntry.id, invoiceId: INVOICE, paymentId: payment.id }])),
      insertStatement: (statements, em) => em.transactional((tx) => statements.insertStatement(tx, statement)),
      countManualMatch: (statements, em) => em.transactional((tx) => statements.countManualMatch(tx, statement.id)),
      openInvoiceKeys: (statements, em) => statements.openInvoiceKeys(em, WORKSPACE),
      findInWorkspace: (statements) => statements.findInWorkspace(WORKSPACE, statement.id),
      entriesOf: (statements) => statements.entriesOf(statement.id),
      lockEntry: (statements, em) => em.transactional((tx) => statements.lockEntry(tx, WORKSPACE, statement.id, statementEntry.id)),
      pageNewestFirst: (statements) => statements.pageNewestFirst(WORKSPACE, { created: NOW, id: statement.id }, 10),
    }),
    repositoryExamples('src/modules/account/account.repository.sql', 'accountRepository (account.repository.ts)', accountRepository, {
      settingsOf: (accounts) => accounts.settingsOf(WORKSPACE, NOW),
      lockOrCreate: (accounts, em) => em.transactional((tx) => accounts.lockOrCreate(tx, WORKSPACE, NOW)),
    }),
    repositoryExamples('src/modules/attachments/attachment.repository.sql', 'attachmentRepository (attachment.repository.ts)', attachmentRepository, {
      lastPositionOf: (attachments, em) => em.transactional((tx) => attachments.lastPositionOf(tx, INVOICE)),
      add: (attachments, em) => em.transactional((tx) => attachments.add(tx, attachment)),
      remove: (attachments, em) => em.transactional((tx) => attachments.remove(tx, INVOICE, ATTACHMENT)),
      finalizedContentOf: (attachments) => attachments.finalizedContentOf(WORKSPACE, INVOICE, ATTACHMENT, 'att_0000000000004000800000000000000b'),
    }),
    repositoryExamples('src/modules/timeline/timeline.repository.sql', 'timelineRepository (timeline.repository.ts)', timelineRepository, {
      add: (timeline, em) => em.transactional(async (tx) => timeline.add(tx, entry)),
      pageOldestFirst: (timeline) => timeline.pageOldestFirst(INVOICE, { created: NOW, id: entry.id }, 10),
    }),
    repositoryExamples('src/modules/numbering/numbering.repository.sql', 'numberingRepository (numbering.repository.ts)', numberingRepository, {
      seriesWithCounts: (numbering) => numbering.seriesWithCounts(WORKSPACE),
      internalGaps: (numbering) => numbering.internalGaps(WORKSPACE),
      seriesPage: (numbering) => numbering.seriesPage(WORKSPACE, SERIES.format, SERIES.period, 0, 100),
    }),
    repositoryExamples('src/modules/messages/message.repository.sql', 'messageRepository (message.repository.ts)', messageRepository, {
      add: (messages, em) => em.transactional((tx) => messages.add(tx, message)),
      addReminder: (messages, em) => em.transactional((tx) => messages.addReminder(tx, { ...message, id: '00000000-0000-4000-8000-00000000000a', kind: 'reminder', reminderOn: '2026-11-26' })),
      findInWorkspace: (messages) => messages.findInWorkspace(WORKSPACE, MESSAGE),
      pageOfInvoice: (messages) => messages.pageOfInvoice(INVOICE, { created: NOW, id: MESSAGE }, 10),
      claimDue: (messages) => messages.claimDue(10, 60_000),
      markRetry: (messages) => messages.markRetry(claimedMessage, '451 4.2.1 Mailbox busy', 60),
      markSent: (messages) => messages.markSent(claimedMessage, message.attachments, event),
      markFailed: (messages, em) => em.transactional((tx) => messages.markFailed(tx, claimedMessage, '550 5.1.1 No such user', true)),
      suppressedAmong: (messages) => messages.suppressedAmong(WORKSPACE, ['billing@mueller.example']),
      suppress: (messages, em) => em.transactional((tx) => messages.suppress(tx, WORKSPACE, ['billing@mueller.example'], MESSAGE, '550 5.1.1 No such user')),
      markSeenBounced: (messages) => messages.markSeenBounced(WORKSPACE, 'billing@mueller.example'),
      liftSeenBounced: (messages) => messages.liftSeenBounced(WORKSPACE, 'billing@mueller.example'),
    }),
    repositoryExamples('src/modules/test-clocks/test-clock.repository.sql', 'testClockRepository (test-clock.repository.ts)', testClockRepository, {
      add: (clocks, em) => {
        clocks.add(testClock);
        return em.flush();
      },
      findInWorkspace: (clocks) => clocks.findInWorkspace(WORKSPACE, TEST_CLOCK),
      findForUpdate: (clocks, em) => em.transactional((tx) => clocks.findForUpdate(tx, WORKSPACE, TEST_CLOCK)),
      pageNewestFirst: (clocks) => clocks.pageNewestFirst(WORKSPACE, { created: NOW, id: TEST_CLOCK }, 10),
      frozenTimesOf: (clocks) => clocks.frozenTimesOf([TEST_CLOCK]),
      frozenTimesInWorkspace: (clocks) => clocks.frozenTimesInWorkspace(WORKSPACE),
      claimAdvancing: (clocks) => clocks.claimAdvancing(60_000),
      moveTo: (clocks) => clocks.moveTo(TEST_CLOCK, new Date('2026-11-27T10:00:00.000Z'), 60_000),
      finish: (clocks) => clocks.finish(TEST_CLOCK),
      release: (clocks) => clocks.release(TEST_CLOCK),
      removeWithData: (clocks, em) => em.transactional((tx) => clocks.removeWithData(tx, WORKSPACE, TEST_CLOCK)),
    }),
    moduleExamples('src/modules/messages/reminder-sweep.sql', 'ReminderSweep (reminder-sweep.ts)', {
      sweepOnce: (_, orm) =>
        new ReminderSweep({
          orm,
          clock: systemClock,
          // Never called here: the example's database has no invoice with a reminder due.
          catalog: catalogReader(createServiceClient({ baseUrl: 'http://127.0.0.1:9', name: 'catalog', internalToken: 'x'.repeat(32), timeoutMs: 100 })),
          publicUrlBase: 'http://localhost:8080',
          intervalMs: 60_000,
          announce: () => {},
          onError: () => {},
        }).sweepOnce(),
      sweepClock: (_, orm) =>
        new ReminderSweep({
          orm,
          clock: systemClock,
          catalog: catalogReader(createServiceClient({ baseUrl: 'http://127.0.0.1:9', name: 'catalog', internalToken: 'x'.repeat(32), timeoutMs: 100 })),
          publicUrlBase: 'http://localhost:8080',
          intervalMs: 60_000,
          announce: () => {},
          onError: () => {},
        }).sweepClock(TEST_CLOCK),
    }),
    moduleExamples('src/modules/invoices/overdue-sweep.sql', 'OverdueSweep (overdue-sweep.ts)', {
      sweepOnce: (_, orm) =>
        new OverdueSweep({ orm, clock: systemClock, publicUrlBase: 'http://localhost:8080', intervalMs: 60_000, announce: () => {}, onError: () => {} }).sweepOnce(),
      sweepClock: (_, orm) =>
        new OverdueSweep({ orm, clock: systemClock, publicUrlBase: 'http://localhost:8080', intervalMs: 60_000, announce: () => {}, onError: () => {} }).sweepClock(TEST_CLOCK),
    }),
  ],
};
