// The statements of notifications' repositories, committed beside each as SQL (see
// packages/testing/src/committed-sql.ts): one example call per method, with fixed arguments, on an
// empty migrated database. `npm run sql:write` writes the files; tests/boundaries/committed-sql.test.ts compares.
import { repositoryExamples, type ServiceSqlExamples } from '@invoicing/testing/committed-sql';
import { NOTIFICATIONS_SCHEMA, openNotificationsDatabase } from '../src/database.ts';
import { deliveryRepository, type AttemptRecord, type ClaimedDelivery } from '../src/modules/deliveries/delivery.repository.ts';
import type { EndpointRow } from '../src/modules/endpoints/endpoint.entity.ts';
import { endpointRepository } from '../src/modules/endpoints/endpoint.repository.ts';
import { eventRepository } from '../src/modules/events/event.repository.ts';
import { makeInvoice } from './factories.ts';

const WORKSPACE = '0190f3e2-c1b2-7a8e-9d1f-3c4b5a697887';
const ENDPOINT = '0190f3e2-d4a1-7b2c-8e3f-1a2b3c4d5e6f';
const OTHER_ENDPOINT = '0190f3e2-d4a1-7b2c-8e3f-6f5e4d3c2b1a';
const EVENT = '0190f3e3-0a1b-7c2d-9e3f-4a5b6c7d8e9f';
const DELIVERY = '0190f3e3-1b2c-7d3e-8f4a-5b6c7d8e9fa0';
const LEASE = '5f0c6a1e-2b3d-4e5f-8a9b-0c1d2e3f4a5b';
const AT = new Date('2026-11-24T10:00:00.000Z');
const POSITION = { created: new Date('2026-11-24T09:00:00.000Z'), id: EVENT };

const claimed: ClaimedDelivery = {
  id: DELIVERY,
  lease: LEASE,
  trigger: 'event',
  attempts: 0,
  endpointId: ENDPOINT,
  endpointEnabled: true,
  endpointFailing: false,
  url: 'https://hooks.example.com/invoicing',
  secret: 'sealed-secret',
  previousSecret: null,
  previousSecretExpiresAt: null,
  eventId: EVENT,
  workspaceId: WORKSPACE,
  correlationId: 'req-1',
  eventType: 'invoice.paid',
  eventCreated: AT,
  eventData: {},
};

const attempt: AttemptRecord = {
  attemptedAt: AT,
  url: claimed.url,
  succeeded: false,
  statusCode: 500,
  latencyMs: 120,
  responseBody: 'Internal Server Error',
  error: null,
};

const endpoint: EndpointRow = {
  id: ENDPOINT,
  workspaceId: WORKSPACE,
  url: 'https://hooks.example.com/invoicing',
  enabledEvents: ['invoice.paid', 'invoice.voided'],
  description: 'Accounting',
  status: 'enabled',
  disabledReason: null,
  disabledAt: null,
  failingSince: null,
  secret: 'sealed-secret',
  previousSecret: null,
  previousSecretExpiresAt: null,
  metadata: { team: 'finance' },
  created: AT,
  updated: AT,
};

export const NOTIFICATIONS_SQL_EXAMPLES: ServiceSqlExamples = {
  folder: 'services/notifications',
  database: { schema: NOTIFICATIONS_SCHEMA, open: openNotificationsDatabase },
  repositories: [
    repositoryExamples('src/modules/deliveries/delivery.repository.sql', 'deliveryRepository (delivery.repository.ts)', deliveryRepository, {
      countPending: (deliveries) => deliveries.countPending(),
      claimDue: (deliveries) => deliveries.claimDue(32, 15_000, 8),
      recordAttempt: (deliveries, em) => deliveries.recordAttempt(em, claimed, attempt, 'pending', 5),
      cancelClaimed: (deliveries) => deliveries.cancelClaimed(claimed),
      cancelPendingOf: (deliveries, em) => deliveries.cancelPendingOf(em, ENDPOINT),
      enqueueEvent: (deliveries, em) => deliveries.enqueueEvent(em, EVENT, [ENDPOINT, OTHER_ENDPOINT], 'redeliver'),
      enqueueReplay: (deliveries, em) =>
        deliveries.enqueueReplay(em, ENDPOINT, WORKSPACE, new Date('2026-11-01T00:00:00.000Z'), AT, ['invoice.paid', 'invoice.voided']),
    }),
    repositoryExamples('src/modules/events/event.repository.sql', 'eventRepository (event.repository.ts)', eventRepository, {
      recordWithDeliveries: (events) =>
        events.recordWithDeliveries(
          { id: EVENT, workspaceId: WORKSPACE, correlationId: 'req-1', type: 'invoice.paid', created: AT, data: { object: makeInvoice({ id: 'in_0190f3e2c1b27a8e9d1f3c4b5a697887' }) } },
          0,
        ),
      findInWorkspace: (events) => events.findInWorkspace(WORKSPACE, EVENT),
      pageNewestFirst: (events) =>
        events.pageNewestFirst(WORKSPACE, { type: 'invoice.paid', createdFrom: new Date('2026-11-01T00:00:00.000Z'), createdUntil: AT }, POSITION, 20),
      attemptsNewestFirst: (events) => events.attemptsNewestFirst(EVENT, POSITION, 20),
      purgeOlderThan: (events) => events.purgeOlderThan(new Date('2026-08-26T00:00:00.000Z'), 1_000),
    }),
    repositoryExamples('src/modules/endpoints/endpoint.repository.sql', 'endpointRepository (endpoint.repository.ts)', endpointRepository, {
      findInWorkspace: (endpoints) => endpoints.findInWorkspace(WORKSPACE, ENDPOINT),
      findForUpdate: (endpoints, em) => em.transactional((tx) => endpoints.findForUpdate(tx, WORKSPACE, ENDPOINT)),
      pageNewestFirst: (endpoints) => endpoints.pageNewestFirst(WORKSPACE, { metadata: { team: 'finance' } }, POSITION, 20),
      enabledReceiving: (endpoints, em) => endpoints.enabledReceiving(em, WORKSPACE, 'invoice.paid'),
      add: (endpoints, em) => em.transactional(async (tx) => void endpoints.add(tx, endpoint)),
      remove: (endpoints, em) => endpoints.remove(em, ENDPOINT),
      markSucceeding: (endpoints, em) => endpoints.markSucceeding(em, ENDPOINT),
      markFailing: (endpoints, em) => endpoints.markFailing(em, ENDPOINT, AT),
      disable: (endpoints, em) => endpoints.disable(em, ENDPOINT, 'failing', AT),
    }),
  ],
};
