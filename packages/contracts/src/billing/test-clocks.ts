import { z } from 'zod';
import { dataOf, Livemode, PageQuery, pageOf, Timestamp } from '../common.ts';
import { IdPathParams } from '../ids.ts';
import { defineOperation } from '../operation.ts';

export const TEST_CLOCK_STATUSES = ['ready', 'advancing'] as const;
export const TestClockStatus = z.enum(TEST_CLOCK_STATUSES).describe('`advancing` from an advance until every rule due up to its `frozen_time` has run; `ready` otherwise.');
export type TestClockStatus = z.infer<typeof TestClockStatus>;

export const TEST_CLOCK_NAME_MAX = 300;
/** The farthest one advance goes, in days (it steps a day at a time). */
export const TEST_CLOCK_ADVANCE_MAX_DAYS = 730;

export const TestClock = z
  .object({
    id: z.string().meta({ example: 'clock_0190f3e2c1b27a8e9d1f3c4b5a697887' }),
    object: z.literal('test_clock'),
    livemode: Livemode.describe('Always false: test clocks exist in test mode only.'),
    name: z.string().nullable(),
    frozen_time: Timestamp.describe('"Now" for the customers on this clock. While `advancing`, the time reached so far.'),
    status: TestClockStatus,
    created: Timestamp.describe('Real time of creation.'),
  })
  .meta({ id: 'TestClock' });
export type TestClock = z.infer<typeof TestClock>;

export const CreateTestClockBody = z
  .strictObject({
    frozen_time: Timestamp.describe('Where the clock starts.'),
    name: z.string().trim().min(1).max(TEST_CLOCK_NAME_MAX).optional(),
  })
  .meta({ id: 'CreateTestClockBody', examples: [{ frozen_time: '2027-01-01T09:00:00.000Z', name: 'Monthly plan, three months' }] });
export type CreateTestClockBody = z.infer<typeof CreateTestClockBody>;

export const AdvanceTestClockBody = z
  .strictObject({
    frozen_time: Timestamp.describe(`The time to move to: later than the clock’s \`frozen_time\`, by at most ${TEST_CLOCK_ADVANCE_MAX_DAYS} days (400 otherwise).`),
  })
  .meta({ id: 'AdvanceTestClockBody', examples: [{ frozen_time: '2027-04-01T09:00:00.000Z' }] });
export type AdvanceTestClockBody = z.infer<typeof AdvanceTestClockBody>;

export const ListTestClocksQuery = z.strictObject({ ...PageQuery.shape });
export type ListTestClocksQuery = z.infer<typeof ListTestClocksQuery>;

/** Shown at /docs as the description of the tag. */
export const TEST_CLOCKS_TAG_DESCRIPTION = [
  'Test clocks move time forward for test data, to see months of billing in seconds. With a test key only (a live key gets 403).',
  '1. Create a clock at a `frozen_time`. 2. Create customers with `test_clock` set to it, then their subscriptions and invoices: for them "now" is the clock’s time (issue, finalize, due and payment dates, overdue status). 3. Advance the clock: it moves one day at a time to the new `frozen_time`, and at each day runs, in order and once, what came due: subscription periods (one invoice each), the overdue sweep (`invoice.overdue`), reminders and e-mails due; their events carry the clock’s time. The clock answers `advancing` at once and is `ready` when done: poll it. 4. Delete the clock to delete its customers and their subscriptions, invoices, payments and messages.',
].join('\n\n');

const tag = 'Test clocks';
const service = 'billing';

export const listTestClocks = defineOperation({
  operationId: 'listTestClocks',
  summary: 'List test clocks, newest first',
  tag, service, method: 'GET', path: '/api/v1/test_clocks', scope: 'test_clocks:read', idempotency: 'none', testModeOnly: true,
  query: ListTestClocksQuery,
  responses: { 200: { description: 'A page of test clocks.', schema: pageOf(TestClock) } },
});

export const createTestClock = defineOperation({
  operationId: 'createTestClock',
  summary: 'Create a test clock',
  tag, service, method: 'POST', path: '/api/v1/test_clocks', scope: 'test_clocks:write', idempotency: 'optional', testModeOnly: true,
  body: CreateTestClockBody,
  responses: { 201: { description: 'The clock, `ready`.', schema: dataOf(TestClock) } },
});

export const retrieveTestClock = defineOperation({
  operationId: 'retrieveTestClock',
  summary: 'Retrieve a test clock',
  tag, service, method: 'GET', path: '/api/v1/test_clocks/:id', scope: 'test_clocks:read', idempotency: 'none', testModeOnly: true,
  params: IdPathParams,
  responses: { 200: { description: 'The clock.', schema: dataOf(TestClock) } },
});

export const advanceTestClock = defineOperation({
  operationId: 'advanceTestClock',
  summary: 'Advance a test clock',
  description:
    'Answers at once with the clock `advancing`; the clock then steps one day at a time up to `frozen_time`, running at each step every rule due by then (subscription periods, overdue sweep, reminders, due e-mails) once, and turns `ready`. A `frozen_time` not later than the clock’s, or more than ' + String(TEST_CLOCK_ADVANCE_MAX_DAYS) + ' days later, is a 400; a clock still advancing is a 409 `invalid_state`.',
  tag, service, method: 'POST', path: '/api/v1/test_clocks/:id/advance', scope: 'test_clocks:write', idempotency: 'optional', testModeOnly: true,
  params: IdPathParams,
  body: AdvanceTestClockBody,
  errors: [404, 409],
  responses: { 200: { description: 'The clock, `advancing`.', schema: dataOf(TestClock) } },
});

export const deleteTestClock = defineOperation({
  operationId: 'deleteTestClock',
  summary: 'Delete a test clock and its customers’ data',
  description:
    'Deletes the clock, its customers, their subscriptions, and their invoices with their lines, payments and messages. Events already sent and stored documents (PDFs, e-invoices) stay. A clock still advancing is a 409 `invalid_state`.',
  tag, service, method: 'DELETE', path: '/api/v1/test_clocks/:id', scope: 'test_clocks:write', idempotency: 'optional', testModeOnly: true,
  params: IdPathParams,
  errors: [404, 409],
  responses: { 204: { description: 'Deleted.' } },
});

export const testClockOperations = [listTestClocks, createTestClock, retrieveTestClock, advanceTestClock, deleteTestClock];

/** What an internal call about a clock's data answers: how many rows it made or removed. */
export const TestClockWork = z.object({ count: z.int().min(0) });
export type TestClockWork = z.infer<typeof TestClockWork>;

export const RunTestClockBody = z.strictObject({ frozen_time: Timestamp });
export type RunTestClockBody = z.infer<typeof RunTestClockBody>;

/**
 * The subscriptions service's internal route for billing's clock stepper (the gateway never
 * forwards to it): invoice every period of the clock's subscriptions begun by `frozen_time`, with
 * that time as "now", as the scheduler does in real time. `count`: the periods invoiced.
 */
export const runTestClockSubscriptions = defineOperation({
  operationId: 'runTestClockSubscriptions',
  summary: 'Invoice a test clock’s due subscription periods (internal)',
  tag: 'Internal', service: 'subscriptions', method: 'POST', path: '/internal/v1/test_clocks/:id/run', scope: 'test_clocks:write', idempotency: 'none',
  params: IdPathParams,
  body: RunTestClockBody,
  responses: { 200: { description: 'The periods invoiced.', schema: dataOf(TestClockWork) } },
});

/** Subscriptions' internal route: a deleted clock's subscriptions go (`count`: how many). */
export const deleteTestClockSubscriptions = defineOperation({
  operationId: 'deleteTestClockSubscriptions',
  summary: 'Delete a test clock’s subscriptions (internal)',
  tag: 'Internal', service: 'subscriptions', method: 'POST', path: '/internal/v1/test_clocks/:id/subscriptions/delete', scope: 'test_clocks:write', idempotency: 'none',
  params: IdPathParams,
  responses: { 200: { description: 'The subscriptions deleted.', schema: dataOf(TestClockWork) } },
});

/** The catalog's internal route: a deleted clock's customers go (`count`: how many). */
export const deleteTestClockCustomers = defineOperation({
  operationId: 'deleteTestClockCustomers',
  summary: 'Delete a test clock’s customers (internal)',
  tag: 'Internal', service: 'catalog', method: 'POST', path: '/internal/v1/test_clocks/:id/customers/delete', scope: 'test_clocks:write', idempotency: 'none',
  params: IdPathParams,
  responses: { 200: { description: 'The customers deleted.', schema: dataOf(TestClockWork) } },
});
