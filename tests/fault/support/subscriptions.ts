import type { InvoicingClient } from '@invoicing/client';
import { listAllInvoices, sequenceOf } from './reconcile.ts';

/** One subscription the scenario made, and the period starts it must be invoiced for by `today`. */
export interface PlannedSubscription {
  id: string;
  startDate: string;
  /** Every period start from `startDate` up to today, anchored on the start day. */
  dueStarts: string[];
}

// The calendar here is written out by hand, apart from the service's (Luxon), so the test checks it.

const iso = (year: number, month: number, day: number) => new Date(Date.UTC(year, month, day)).toISOString().slice(0, 10);
const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month + 1, 0)).getUTCDate();

/** `months` calendar months after `date`, its day kept or clamped to the month's last (31 Jan + 1 = 28/29 Feb). */
export const addMonths = (date: string, months: number): string => {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number];
  const target = new Date(Date.UTC(year, month - 1 + months, 1));
  return iso(target.getUTCFullYear(), target.getUTCMonth(), Math.min(day, daysIn(target.getUTCFullYear(), target.getUTCMonth())));
};

/** A start date `monthsBack` months and `daysBack` days before `today`: `monthsBack + 1` monthly periods have begun by today when `daysBack` is under 28. */
export const pastStartDate = (today: string, monthsBack: number, daysBack: number): string => {
  const shifted = addMonths(today, -monthsBack);
  return new Date(Date.parse(`${shifted}T00:00:00Z`) - daysBack * 86_400_000).toISOString().slice(0, 10);
};

/** The monthly period starts from `startDate` (each counted from it, not from the previous) that have begun by `today`. */
export const dueMonthlyStarts = (startDate: string, today: string): string[] => {
  const starts: string[] = [];
  for (let index = 0; ; index += 1) {
    const start = addMonths(startDate, index);
    if (start > today) return starts;
    starts.push(start);
  }
};

export interface SubscriptionFigures {
  subscriptions: number;
  expected: number;
  invoices: number;
  duplicates: number;
  missing: number;
  unexpected: number;
  notFinalized: number;
  numberGaps: number;
  duplicateNumbers: number;
  numberingVerified: boolean;
  totalsReconciled: boolean;
}

/**
 * What the subscriptions left in the workspace, over the public API: one invoice per subscription
 * and period start (its lines' `period.start`), none missing, none twice, none for a period not
 * due; every one finalized, numbered 1..N without a gap or repeat (and `numbering/verify` agrees);
 * and the money: Σ invoice totals equals Σ over the planned periods of each subscription's price.
 */
export const reconcileSubscriptions = async (api: InvoicingClient, planned: readonly PlannedSubscription[], amountPerPeriod: number): Promise<SubscriptionFigures> => {
  const invoices = (await listAllInvoices(api)).filter((invoice) => invoice.subscription !== null);
  const seen = new Map<string, number>();
  for (const invoice of invoices) {
    const key = `${invoice.subscription}@${invoice.lines.data[0]?.period?.start ?? '?'}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  const expectedKeys = new Set(planned.flatMap((subscription) => subscription.dueStarts.map((start) => `${subscription.id}@${start}`)));
  const numbered = invoices.filter((invoice) => invoice.number !== null);
  const sequences = numbered.map((invoice) => sequenceOf(invoice.number!));
  const distinct = new Set(sequences);
  let numberGaps = 0;
  for (let sequence = 1; sequence <= Math.max(0, ...sequences); sequence += 1) if (!distinct.has(sequence)) numberGaps += 1;
  const verification = await api.GET('/api/v1/numbering/verify', {});
  const total = invoices.reduce((sum, invoice) => sum + invoice.total, 0);
  return {
    subscriptions: planned.length,
    expected: expectedKeys.size,
    invoices: invoices.length,
    duplicates: [...seen.values()].reduce((sum, count) => sum + count - 1, 0),
    missing: [...expectedKeys].filter((key) => !seen.has(key)).length,
    unexpected: [...seen.keys()].filter((key) => !expectedKeys.has(key)).length,
    notFinalized: invoices.filter((invoice) => invoice.status !== 'open').length,
    numberGaps,
    duplicateNumbers: sequences.length - distinct.size,
    numberingVerified: verification.data?.data.verified === true && verification.data.data.invoices_checked === numbered.length,
    totalsReconciled: total === expectedKeys.size * amountPerPeriod,
  };
};

export const formatSubscriptionFigures = (scenario: string, f: SubscriptionFigures, extra: string): string =>
  `[fault] ${scenario}: subscriptions=${f.subscriptions} periods_due=${f.expected} invoices=${f.invoices} duplicates=${f.duplicates} missing=${f.missing} ` +
  `unexpected=${f.unexpected} not_finalized=${f.notFinalized} number_gaps=${f.numberGaps} duplicate_numbers=${f.duplicateNumbers} ` +
  `numbering_verified=${f.numberingVerified} totals_reconciled=${f.totalsReconciled}${extra}`;
