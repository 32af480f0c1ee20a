import { parsePublicId } from '@invoicing/contracts';
import { notFound } from '@invoicing/service-kit';
import { fixedClock, type Clock } from '@invoicing/service-kit/clock';
import type { EntityManager } from '@mikro-orm/postgresql';
import pRetry from 'p-retry';
import type { Actor } from '../../shared/actor.ts';
import type { CatalogReader } from '../../shared/catalog.ts';
import { localDateOf, type LocalDate } from '../../shared/clock.ts';
import type { AccountRow } from '../account/account.entity.ts';
import { defaultAccount } from '../account/account.domain.ts';
import { accountRepository } from '../account/account.repository.ts';
import { testClockRepository } from '../test-clocks/test-clock.repository.ts';
import { priceAgain, type ViewContext } from './invoice.domain.ts';
import type { InvoiceLineRow } from './invoice.entity.ts';
import type { DocumentAdjustments, InvoiceTotals } from './invoice-totals.domain.ts';

/** What the invoice use cases share. */
export interface InvoiceDeps {
  /** Request-scoped through RequestContext; use cases open their transactions on it. */
  em: EntityManager;
  catalog: CatalogReader;
  clock: Clock;
  /** Origin of the public invoice pages. */
  publicUrlBase: string;
  /** Tells the outbox relay that committed rows wait, so events leave now rather than at the next poll. */
  announce: () => void;
}

/** The moment a use case runs at, seen from the workspace: its settings, its "today", how to render. */
export interface WorkspaceMoment {
  now: Date;
  account: AccountRow;
  local: LocalDate;
  view: ViewContext;
}

/**
 * Where "now" comes from for data on a test clock (`testClockId`, an invoice's or its customer's):
 * the clock's frozen time; for everything else, and for a clock deleted meanwhile, the service's clock.
 */
export const clockFor = async (deps: Pick<InvoiceDeps, 'em' | 'clock'>, testClockId: string | null | undefined): Promise<Clock> => {
  if (!testClockId) return deps.clock;
  const frozen = (await testClockRepository(deps.em).frozenTimesOf([testClockId])).get(testClockId);
  return frozen ? fixedClock(frozen) : deps.clock;
};

/**
 * `loaded` is the workspace's settings when the caller read them already (null: it has none, so
 * the defaults); `testClockId`: the test clock of the data at hand, whose time is then "now".
 */
export const workspaceMoment = async (deps: InvoiceDeps, actor: Actor, loaded?: AccountRow | null, testClockId?: string | null): Promise<WorkspaceMoment> => {
  const now = (await clockFor(deps, testClockId)).now();
  const account = loaded === undefined ? await accountRepository(deps.em).settingsOf(actor.workspaceId, now) : (loaded ?? defaultAccount(actor.workspaceId, now));
  const local = localDateOf(now, account.timezone);
  return { now, account, local, view: { today: local.date, publicUrlBase: deps.publicUrlBase } };
};

/** The UUID behind an invoice path ID; a malformed one names nothing, so it is a 404 like an unknown one. */
export const invoiceIdOf = (publicId: string): string => {
  const id = parsePublicId('invoice', publicId);
  if (id === undefined) throw notFound('invoice', publicId);
  return id;
};

/**
 * Prices a draft's stored lines again under the current rule (`priceAgain`) inside `tx`: each
 * line's tax is set on the line as `tx` holds it, so the transaction writes it back; answers the
 * invoice's totals.
 */
export const repriceStoredLines = (tx: EntityManager, lines: readonly InvoiceLineRow[], adjustments: DocumentAdjustments): InvoiceTotals => {
  const priced = priceAgain(lines, adjustments);
  lines.forEach((line, index) => tx.assign(line, { tax: priced.lines[index]!.tax }));
  return priced.totals;
};

/** Signals that a row changed between the read before a transaction and the lock inside it. */
export class StaleRead extends Error {
  override name = 'StaleRead';
}

/**
 * Runs a use case that reads, calls the catalog, then locks and writes: when the row changed in
 * between (StaleRead), it runs again with fresh reads, a few times at most. At once, without a
 * delay: the write that raced it has committed, so the next read sees it.
 */
export const retryingStaleReads = <T>(run: () => Promise<T>, attempts = 3): Promise<T> =>
  pRetry(() => run(), { retries: attempts - 1, minTimeout: 0, shouldRetry: ({ error }) => error instanceof StaleRead });
