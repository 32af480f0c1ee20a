import { expect } from 'vitest';
import type { ClientVisibleError } from './lifecycles.ts';
import type { Figures } from './reconcile.ts';

/**
 * Every requested invoice exists once, finalized with a number of 1..N and paid, with one
 * invoice.paid event id and a PDF, and the client never saw an error. One comparison of the
 * whole set, so a failure shows every figure that is off at once.
 */
export const expectNothingLostOrDoubled = (figures: Figures, errors: readonly ClientVisibleError[]) => {
  const { requested } = figures;
  expect({
    duplicates: figures.duplicates,
    missing: figures.missing,
    notFinalized: requested - figures.finalized,
    notPaid: requested - figures.paid,
    numberGaps: figures.numberGaps,
    duplicateNumbers: figures.duplicateNumbers,
    numberingVerified: figures.numberingVerified,
    paidWithoutEvent: figures.paidWithoutEvent,
    paidWithSeveralEvents: figures.paidWithSeveralEvents,
    events: figures.events,
    pdfsNotServed: figures.finalized - figures.pdfs,
    pdfsNotStored: figures.finalized - figures.pdfsStored,
    notCompletedForTheClient: requested - figures.completed,
    clientErrors: errors.slice(0, 10),
  }).toEqual({
    duplicates: 0,
    missing: 0,
    notFinalized: 0,
    notPaid: 0,
    numberGaps: 0,
    duplicateNumbers: 0,
    numberingVerified: true,
    paidWithoutEvent: 0,
    paidWithSeveralEvents: 0,
    events: requested,
    pdfsNotServed: 0,
    pdfsNotStored: 0,
    notCompletedForTheClient: 0,
    clientErrors: [],
  });
};
