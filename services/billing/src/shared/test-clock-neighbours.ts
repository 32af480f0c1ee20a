import { dataOf, TestClockWork, toPublicId } from '@invoicing/contracts';
import type { ServiceClient } from '@invoicing/service-kit';
import { AppError } from '@invoicing/service-kit/app-error';
import { callerFor, type Actor } from './actor.ts';

const WorkResponse = dataOf(TestClockWork);

type WorkAnswer = { ok: true; data: { data: TestClockWork } } | { ok: false; status: number; problem: { code?: string } };

/** A refusal is a fault of the platform (billing named a clock it holds): retried as an outage. */
const countOf = (service: string, answer: WorkAnswer): number => {
  if (!answer.ok) throw new AppError('unavailable', `The ${service} service refused the test clock’s work: ${answer.status} ${answer.problem.code ?? ''}`.trim());
  return answer.data.data.count;
};

/**
 * The services that hold a test clock's other data, over their internal routes: subscriptions
 * invoices the clock's due periods at its time, and both delete what lives on a deleted clock.
 */
export const testClockNeighbours = (catalog: ServiceClient, subscriptions: ServiceClient) => ({
  runSubscriptions: async (actor: Actor, clockId: string, at: Date): Promise<number> =>
    countOf('subscriptions', await subscriptions.send('POST', `/internal/v1/test_clocks/${toPublicId('testClock', clockId)}/run`, callerFor(actor), { frozen_time: at.toISOString() }, WorkResponse)),
  deleteSubscriptionsOf: async (actor: Actor, clockId: string): Promise<number> =>
    countOf('subscriptions', await subscriptions.send('POST', `/internal/v1/test_clocks/${toPublicId('testClock', clockId)}/subscriptions/delete`, callerFor(actor), {}, WorkResponse)),
  deleteCustomersOf: async (actor: Actor, clockId: string): Promise<number> =>
    countOf('catalog', await catalog.send('POST', `/internal/v1/test_clocks/${toPublicId('testClock', clockId)}/customers/delete`, callerFor(actor), {}, WorkResponse)),
});

export type TestClockNeighbours = ReturnType<typeof testClockNeighbours>;
