import { BILLING_SUBJECTS } from '@invoicing/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeEnvelope, publicEventIdOf } from './factories.ts';
import { expectProblem, startNotifications, subscribe, type Notifications, type WorkspaceClient } from './harness.ts';
import { startReceiver, type Receiver } from './receiver.ts';

type Page = { data: { id: string }[]; next_cursor: string | null };

let notifications: Notifications;
let receiver: Receiver;
let client: WorkspaceClient;
let eventIds: string[];
/** The second page's cursor of each list: endpoints, events, and the first event's delivery attempts. */
let cursors: { endpoints: string; events: string; deliveries: string };

const pageOf = async (path: string, as = client) => {
  const reply = await as.get(path);
  expect(reply.statusCode, reply.body).toBe(200);
  return reply.json<Page>();
};
const expectRefused = async (path: string, as = client) => {
  const problem = expectProblem(await as.get(path), 400, 'invalid_request', ['cursor']);
  expect(problem.detail).toBe('cursor was not issued by this API.');
};

beforeAll(async () => {
  [notifications, receiver] = await Promise.all([startNotifications('notifications_cursors'), startReceiver()]);
  client = notifications.workspace();
  // Three endpoints receiving every event: three attempts per event.
  for (let n = 0; n < 3; n += 1) await subscribe(client, receiver);
  const envelopes = [0, 1, 2].map(() => makeEnvelope(client.workspaceId, BILLING_SUBJECTS.invoicePaid));
  for (const envelope of envelopes) await notifications.publish(envelope);
  eventIds = envelopes.map(publicEventIdOf);
  // expect.poll works only inside a test, so the wait is spelled out: all three events in the log,
  // the first one attempted at all three endpoints (until it reaches the log, its attempts are a 404).
  const countAt = async (path: string) => {
    const reply = await client.get(path);
    return reply.statusCode === 200 ? reply.json<Page>().data.length : 0;
  };
  const settled = async () => (await countAt('/api/v1/events')) === 3 && (await countAt(`/api/v1/events/${eventIds[0]}/deliveries`)) === 3;
  for (const deadline = Date.now() + 10_000; !(await settled()); ) {
    if (Date.now() > deadline) throw new Error('the events were not logged and attempted within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const [endpoints, events, deliveries] = await Promise.all(
    ['/api/v1/webhook_endpoints?limit=2', '/api/v1/events?limit=2', `/api/v1/events/${eventIds[0]}/deliveries?limit=2`].map(async (path) => (await pageOf(path)).next_cursor!),
  );
  cursors = { endpoints: endpoints!, events: events!, deliveries: deliveries! };
  expect(Object.values(cursors)).toEqual([expect.any(String), expect.any(String), expect.any(String)]);
});
afterAll(async () => {
  await notifications?.close();
  await receiver?.close();
});

describe('list cursors', () => {
  it('page to the end of the list that issued them', async () => {
    for (const [path, cursor] of [
      ['/api/v1/webhook_endpoints', cursors.endpoints],
      ['/api/v1/events', cursors.events],
      [`/api/v1/events/${eventIds[0]}/deliveries`, cursors.deliveries],
    ] as const) {
      expect(await pageOf(`${path}?limit=2&cursor=${cursor}`)).toEqual({ data: [expect.objectContaining({ id: expect.any(String) })], next_cursor: null });
    }
  });

  it('are refused by another list, another event’s attempts and another workspace', async () => {
    await expectRefused(`/api/v1/events?cursor=${cursors.endpoints}`);
    await expectRefused(`/api/v1/webhook_endpoints?cursor=${cursors.events}`);
    await expectRefused(`/api/v1/events/${eventIds[0]}/deliveries?cursor=${cursors.events}`);
    await expectRefused(`/api/v1/events/${eventIds[1]}/deliveries?cursor=${cursors.deliveries}`);
    await expectRefused(`/api/v1/events?cursor=${cursors.events}`, notifications.workspace());
  });

  it('are refused when made by hand or altered', async () => {
    const [position, tag] = cursors.events.split('.');
    const [, id] = JSON.parse(Buffer.from(position!, 'base64url').toString('utf8')) as [string, string];
    const movedBack = Buffer.from(JSON.stringify(['2000-01-01T00:00:00.000Z', id])).toString('base64url');
    for (const forged of [position, `${movedBack}.${tag}`, cursors.events.slice(0, -1), `${position}.${'A'.repeat(tag!.length)}`]) {
      await expectRefused(`/api/v1/events?cursor=${forged}`);
    }
  });
});
