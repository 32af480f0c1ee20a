import { toPublicId, type ChainBreak, type Numbering, type NumberingVerification, type NumberSeries } from '@invoicing/contracts';
import type { Clock } from '@invoicing/service-kit/clock';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../shared/actor.ts';
import { localDateOf } from '../../shared/clock.ts';
import { accountRepository } from '../account/account.repository.ts';
import { invoiceView } from '../invoices/invoice.domain.ts';
import { invoiceRepository } from '../invoices/invoice.repository.ts';
import { chainHashOf, documentVersionOf, GENESIS_CHAIN, snapshotHashOf } from './invoice-integrity.domain.ts';
import { livemodeOf } from '@invoicing/service-kit/data-space';
import { formatNumber, periodOf, periodView } from './numbering.domain.ts';
import { numberingRepository, type SeriesCount, type SequenceGap } from './numbering.repository.ts';

const VERIFY_PAGE = 500;

const seriesView = (spaceId: string, series: SeriesCount, gaps: readonly SequenceGap[]): NumberSeries => {
  const number = (sequence: number) => formatNumber(series.format, series.period, sequence);
  // Gaps before and between held numbers come from the database; one after the last held number, up to the counter, from here.
  const lastHeld = series.lastSequence ?? 0;
  const tail = lastHeld < series.lastValue ? [{ first: lastHeld + 1, last: series.lastValue }] : [];
  return {
    object: 'number_series',
    livemode: livemodeOf(spaceId),
    format: series.format,
    period: periodView(series.period),
    issued: series.issued,
    first_number: series.firstSequence === null ? null : number(series.firstSequence),
    last_number: series.lastSequence === null ? null : number(series.lastSequence),
    last_sequence: series.lastValue,
    next_number: number(series.lastValue + 1),
    gaps: [...gaps, ...tail].map((gap) => ({
      first_sequence: gap.first,
      last_sequence: gap.last,
      first_number: number(gap.first),
      last_number: number(gap.last),
      count: gap.last - gap.first + 1,
    })),
  };
};

/** The numbering report and the chain verification: both recount from the invoices themselves. */
export const numberingService = (em: EntityManager, clock: Clock) => {
  const numbering = numberingRepository(em);
  const accounts = accountRepository(em);
  const invoices = invoiceRepository(em);

  /** Walks one series in sequence order, recomputing every hash; the first break, or none. */
  const firstBreakIn = async (workspaceId: string, series: SeriesCount): Promise<{ checked: number; breakAt: ChainBreak | null }> => {
    const at = (sequence: number, reason: ChainBreak['reason'], invoiceId: string | null): ChainBreak => ({
      format: series.format,
      period: periodView(series.period),
      sequence,
      number: formatNumber(series.format, series.period, sequence),
      invoice: invoiceId ? toPublicId('invoice', invoiceId) : null,
      reason,
    });
    const context = { today: '0000-00-00', publicUrlBase: '' };
    let expected = 1;
    let chain = GENESIS_CHAIN;
    for (;;) {
      const rows = await numbering.seriesPage(workspaceId, series.format, series.period, expected - 1, VERIFY_PAGE);
      const lines = await invoices.linesOfEach(rows.map((row) => row.id));
      for (const row of rows) {
        if (row.numberSequence !== expected) return { checked: expected - 1, breakAt: at(expected, 'missing_number', null) };
        const snapshot = snapshotHashOf(invoiceView(row, lines.get(row.id) ?? [], context), documentVersionOf(row.snapshotVersion));
        if (snapshot !== row.snapshotSha256 || row.number !== formatNumber(series.format, series.period, expected)) {
          return { checked: expected - 1, breakAt: at(expected, 'snapshot_mismatch', row.id) };
        }
        chain = chainHashOf(chain, snapshot);
        if (chain !== row.chainSha256) return { checked: expected - 1, breakAt: at(expected, 'chain_mismatch', row.id) };
        expected++;
      }
      if (rows.length < VERIFY_PAGE) break;
    }
    const checked = expected - 1;
    if (checked < series.lastValue) return { checked, breakAt: at(expected, 'missing_number', null) };
    if (checked > series.lastValue || chain !== series.lastChain) return { checked, breakAt: at(series.lastValue, 'counter_mismatch', null) };
    return { checked, breakAt: null };
  };

  return {
    retrieve: async (actor: Actor) => {
      const now = clock.now();
      const [account, counts, gaps] = await Promise.all([
        accounts.settingsOf(actor.workspaceId, now),
        numbering.seriesWithCounts(actor.workspaceId),
        numbering.internalGaps(actor.workspaceId),
      ]);
      const series = counts.map((count) => seriesView(actor.workspaceId, count, gaps.filter((gap) => gap.format === count.format && gap.period === count.period)));
      const period = periodOf(account.numberFormat, localDateOf(now, account.timezone));
      const current = counts.find((count) => count.format === account.numberFormat && count.period === period);
      const data: Numbering = {
        object: 'numbering',
        livemode: livemodeOf(actor.workspaceId),
        number_format: account.numberFormat,
        timezone: account.timezone,
        current_period: periodView(period),
        next_number: formatNumber(account.numberFormat, period, (current?.lastValue ?? 0) + 1),
        gap_free: series.every((item) => item.gaps.length === 0),
        series,
      };
      return { data };
    },

    verify: async (actor: Actor) => {
      const counts = (await numbering.seriesWithCounts(actor.workspaceId)).reverse();
      let invoicesChecked = 0;
      let firstBreak: ChainBreak | null = null;
      for (const series of counts) {
        const { checked, breakAt } = await firstBreakIn(actor.workspaceId, series);
        invoicesChecked += checked;
        if (breakAt) {
          firstBreak = breakAt;
          break;
        }
      }
      const data: NumberingVerification = {
        object: 'numbering_verification',
        livemode: livemodeOf(actor.workspaceId),
        verified: firstBreak === null,
        series_checked: counts.length,
        invoices_checked: invoicesChecked,
        first_break: firstBreak,
        checked_at: clock.now().toISOString(),
      };
      return { data };
    },
  };
};

export type NumberingService = ReturnType<typeof numberingService>;
