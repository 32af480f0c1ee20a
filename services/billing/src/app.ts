import { afterCommit, createCursorCodec, createServiceApp, loggerOptions, type Orm } from '@invoicing/service-kit';
import type { Clock } from '@invoicing/service-kit/clock';
import { BILLING_SCHEMA } from './database.ts';
import type { FastifyServerOptions } from 'fastify';
import { registerAccountRoutes } from './modules/account/account.routes.ts';
import { registerAttachmentRoutes } from './modules/attachments/attachment.routes.ts';
import { attachmentsService } from './modules/attachments/attachments.service.ts';
import { registerBankStatementRoutes } from './modules/bank-statements/bank-statement.routes.ts';
import { bankStatementsService } from './modules/bank-statements/bank-statements.service.ts';
import { accountService } from './modules/account/account.service.ts';
import { finalizeInvoice } from './modules/invoices/finalize-invoice.ts';
import { registerInvoiceRoutes } from './modules/invoices/invoice.routes.ts';
import { invoiceService } from './modules/invoices/invoice.service.ts';
import { payInvoice } from './modules/invoices/pay-invoice.ts';
import { publicLinks } from './modules/invoices/public-link.ts';
import { voidInvoice } from './modules/invoices/void-invoice.ts';
import { registerMessageRoutes } from './modules/messages/message.routes.ts';
import { messageService } from './modules/messages/message.service.ts';
import { registerNumberingRoutes } from './modules/numbering/numbering.routes.ts';
import { numberingService } from './modules/numbering/numbering.service.ts';
import { registerPaymentRoutes } from './modules/payments/payment.routes.ts';
import { paymentsService } from './modules/payments/payments.service.ts';
import { registerTestClockRoutes } from './modules/test-clocks/test-clock.routes.ts';
import { testClocksService } from './modules/test-clocks/test-clocks.service.ts';
import type { CatalogReader } from './shared/catalog.ts';
import type { TestClockNeighbours } from './shared/test-clock-neighbours.ts';

export interface BillingAppDeps {
  /** Opened on the billing schema and migrated; whoever opened it closes it. */
  orm: Orm;
  internalToken: string;
  catalog: CatalogReader;
  clock: Clock;
  publicUrlBase: string;
  /** Called after a commit that added outbox rows. */
  announce: () => void;
  checkReadiness: () => Promise<void>;
  /** Catalog and subscriptions, for the data that lives on a test clock. */
  testClockNeighbours: TestClockNeighbours;
  /** Wakes the test clock stepper after an advance. */
  nudgeAdvancer: () => void;
  logger?: FastifyServerOptions['logger'];
  /** How long the outcome of a keyed write is kept (IDEMPOTENCY_TTL_HOURS). */
  idempotencyTtlHours?: number;
  /** The most finalizes of one number series written in one transaction (FINALIZE_BATCH_MAX); 1: each alone. */
  finalizeBatchMax?: number;
}

/** Billing's HTTP app: invoices, numbering and account settings. Registers everything, never listens. */
export const buildApp = ({ orm, internalToken, catalog, clock, publicUrlBase, announce, checkReadiness, testClockNeighbours, nudgeAdvancer, logger = loggerOptions('billing', 'silent'), idempotencyTtlHours = 24, finalizeBatchMax = 64 }: BillingAppDeps) => {
  const app = createServiceApp({ name: 'billing', logger, internalToken, orm, checkReadiness, keyedWrites: { schema: BILLING_SCHEMA, ttlHours: idempotencyTtlHours } });
  // A keyed write commits after its use case returns: the relay is told once it has.
  const invoiceDeps = { em: orm.em, catalog, clock, publicUrlBase, announce: () => afterCommit(announce) };
  const batchSizes = app.metrics.histogram('billing_finalize_batch_size', 'Finalizes written by one transaction (group commit).', [1, 2, 4, 8, 16, 32, 64, 128, 256]);
  // A batch commits before any of its members answers, so its nudge needs no keyed write's afterCommit.
  const finalize = finalizeInvoice({ ...invoiceDeps, announce }, { orm, batchMax: finalizeBatchMax, onBatch: (size) => batchSizes.observe(size) });
  app.metrics.gauge('billing_finalize_waiting', 'Finalizes waiting for the next transaction of their number series.', () => finalize.waiting());
  registerInvoiceRoutes(app, {
    // Cursors are signed with a key derived from the internal token, which every replica shares.
    invoices: invoiceService(invoiceDeps, createCursorCodec(internalToken)),
    finalize,
    pay: payInvoice(invoiceDeps),
    void: voidInvoice(invoiceDeps),
    publicLinks: publicLinks(invoiceDeps),
  });
  registerAttachmentRoutes(app, attachmentsService(invoiceDeps));
  registerPaymentRoutes(app, paymentsService(invoiceDeps));
  registerBankStatementRoutes(app, bankStatementsService(invoiceDeps, createCursorCodec(internalToken)));
  registerMessageRoutes(app, messageService(invoiceDeps, createCursorCodec(internalToken)));
  registerNumberingRoutes(app, numberingService(orm.em, clock));
  registerAccountRoutes(app, accountService(orm.em, clock));
  registerTestClockRoutes(app, testClocksService({ em: orm.em, clock, neighbours: testClockNeighbours, nudgeAdvancer }, createCursorCodec(internalToken)));
  return app;
};

export type BillingApp = ReturnType<typeof buildApp>;
