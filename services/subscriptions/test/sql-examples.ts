// The subscriptions service's repositories, each method called once with fixed arguments, for the
// committed SQL beside each repository (packages/testing/src/committed-sql.ts, `npm run sql:write`).
// The examples run in order on one database: `add` stores the subscription the others find.
import { CreateSubscriptionBody } from '@invoicing/contracts';
import { repositoryExamples, type ServiceSqlExamples } from '@invoicing/testing/committed-sql';
import { openSubscriptionsDatabase, SUBSCRIPTIONS_SCHEMA } from '../src/database.ts';
import { itemRows, newSubscription } from '../src/modules/subscriptions/subscription.domain.ts';
import { subscriptionRepository } from '../src/modules/subscriptions/subscription.repository.ts';

const WORKSPACE = '00000000-0000-4000-8000-000000000001';
const SUBSCRIPTION = '00000000-0000-4000-8000-000000000002';
const CUSTOMER = '00000000-0000-4000-8000-000000000003';
const PRICE = '00000000-0000-4000-8000-000000000004';
const TEST_CLOCK = '00000000-0000-4000-8000-000000000005';
const NOW = new Date('2027-01-31T10:00:00.000Z');

const created = newSubscription(WORKSPACE, CreateSubscriptionBody.parse({ customer: CUSTOMER, items: [{ price: PRICE, quantity: 2 }], start_date: '2027-01-31' }), {
  terms: { currency: 'EUR', cadence: { interval: 'month', intervalCount: 1 } },
  timeZone: 'Europe/Berlin',
  now: NOW,
});
const subscription = { ...created.row, id: SUBSCRIPTION };
const items = created.items.map((item, index) => ({ ...item, subscriptionId: SUBSCRIPTION, id: `00000000-0000-4000-8000-00000000001${index}` }));
const period = {
  subscriptionId: SUBSCRIPTION,
  periodStart: '2027-01-31',
  workspaceId: WORKSPACE,
  periodEnd: '2027-02-27',
  request: { customer: CUSTOMER },
  invoiceId: null,
  finalized: false,
  createdAt: NOW,
};

export const SUBSCRIPTIONS_SQL_EXAMPLES: ServiceSqlExamples = {
  folder: 'services/subscriptions',
  database: { schema: SUBSCRIPTIONS_SCHEMA, open: openSubscriptionsDatabase },
  repositories: [
    repositoryExamples('src/modules/subscriptions/subscription.repository.sql', 'subscriptionRepository (subscription.repository.ts)', subscriptionRepository, {
      add: (subscriptions, em) => em.transactional(async (tx) => subscriptions.add(tx, subscription, items)),
      findInWorkspace: (subscriptions) => subscriptions.findInWorkspace(WORKSPACE, SUBSCRIPTION),
      findForUpdate: (subscriptions, em) => em.transactional((tx) => subscriptions.findForUpdate(tx, WORKSPACE, SUBSCRIPTION)),
      itemsOf: (subscriptions) => subscriptions.itemsOf(SUBSCRIPTION),
      itemsOfEach: (subscriptions) => subscriptions.itemsOfEach([SUBSCRIPTION]),
      pageNewestFirst: (subscriptions) => subscriptions.pageNewestFirst(WORKSPACE, { customerId: CUSTOMER, status: 'active', metadata: { plan: 'pro' } }, { created: NOW, id: SUBSCRIPTION }, 20),
      replaceItemsFrom: (subscriptions, em) =>
        em.transactional((tx) => subscriptions.replaceItemsFrom(tx, SUBSCRIPTION, '2027-02-28', itemRows(subscription, [{ price: PRICE, quantity: 3 }], '2027-02-28').map((item) => ({ ...item, id: '00000000-0000-4000-8000-000000000020' })))),
      // By real time, then one test clock's by its time.
      claimDue: async (subscriptions) => {
        await subscriptions.claimDue({ dueBy: NOW, now: NOW, leaseMs: 60_000, limit: 32 });
        return subscriptions.claimDue({ dueBy: NOW, now: NOW, leaseMs: 60_000, testClock: { workspaceId: WORKSPACE, id: TEST_CLOCK } });
      },
      release: (subscriptions) => subscriptions.release(SUBSCRIPTION, null, null),
      periodRequest: (subscriptions) => subscriptions.periodRequest(period),
      periodsOf: (subscriptions) => subscriptions.periodsOf(SUBSCRIPTION),
      completePeriod: (subscriptions, em) =>
        em.transactional((tx) =>
          subscriptions.completePeriod(tx, { subscriptionId: SUBSCRIPTION, periodStart: '2027-01-31', invoiceId: '00000000-0000-4000-8000-000000000030', finalized: true, index: 0 }, { nextActionAt: NOW, updatedAt: NOW }),
        ),
      removeOfTestClock: (subscriptions) => subscriptions.removeOfTestClock(WORKSPACE, TEST_CLOCK),
    }),
  ],
};
