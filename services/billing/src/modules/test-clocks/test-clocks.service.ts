import { parsePublicId, type AdvanceTestClockBody, type CreateTestClockBody, type ListTestClocksQuery } from '@invoicing/contracts';
import { notFound, type CursorCodec } from '@invoicing/service-kit';
import type { Clock } from '@invoicing/service-kit/clock';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../shared/actor.ts';
import type { TestClockNeighbours } from '../../shared/test-clock-neighbours.ts';
import { advanceChanges, assertDeletable, assertTestSpace, newTestClock, testClockView } from './test-clock.domain.ts';
import { testClockRepository } from './test-clock.repository.ts';

export interface TestClocksDeps {
  em: EntityManager;
  clock: Clock;
  /** Catalog and subscriptions: a deleted clock's customers and subscriptions go with it. */
  neighbours: TestClockNeighbours;
  /** Wakes the stepper: an advance was committed. */
  nudgeAdvancer: () => void;
}

/** The UUID behind a clock path ID; a malformed one names nothing (404). */
const clockIdOf = (publicId: string): string => {
  const id = parsePublicId('testClock', publicId);
  if (id === undefined) throw notFound('test_clock', publicId);
  return id;
};

/** Test clocks: create, read, list, advance (the stepper does the work), delete with the data on them. */
export const testClocksService = ({ em, clock, neighbours, nudgeAdvancer }: TestClocksDeps, cursors: CursorCodec) => {
  const clocks = testClockRepository(em);

  const load = async (actor: Actor, publicId: string) => {
    const row = await clocks.findInWorkspace(actor.workspaceId, clockIdOf(publicId));
    if (!row) throw notFound('test_clock', publicId);
    return row;
  };

  return {
    create: async (actor: Actor, body: CreateTestClockBody) => {
      const row = newTestClock(actor.workspaceId, body, clock.now());
      clocks.add(row);
      await em.flush();
      return { data: testClockView(row) };
    },

    retrieve: async (actor: Actor, publicId: string) => ({ data: testClockView(await load(actor, publicId)) }),

    list: async (actor: Actor, query: ListTestClocksQuery) => {
      assertTestSpace(actor.workspaceId);
      const pages = cursors.forList('test_clocks', actor.workspaceId);
      const rows = await clocks.pageNewestFirst(actor.workspaceId, pages.positionOf(query.cursor), query.limit);
      return pages.toPage(rows, query.limit, testClockView);
    },

    advance: async (actor: Actor, publicId: string, body: AdvanceTestClockBody) => {
      const id = clockIdOf(publicId);
      const row = await em.transactional(async (tx) => {
        const locked = await clocks.findForUpdate(tx, actor.workspaceId, id);
        if (!locked) throw notFound('test_clock', publicId);
        tx.assign(locked, { ...advanceChanges(locked, new Date(body.frozen_time)), claimedUntil: null });
        return locked;
      });
      nudgeAdvancer();
      return { data: testClockView(row) };
    },

    /** The clock's customers and subscriptions go first: a failure leaves the clock, to be deleted again. */
    remove: async (actor: Actor, publicId: string): Promise<void> => {
      const row = await load(actor, publicId);
      assertDeletable(row);
      await neighbours.deleteSubscriptionsOf(actor, row.id);
      await neighbours.deleteCustomersOf(actor, row.id);
      await em.transactional(async (tx) => {
        const locked = await clocks.findForUpdate(tx, actor.workspaceId, row.id);
        if (!locked) return;
        assertDeletable(locked);
        await testClockRepository(tx).removeWithData(tx, actor.workspaceId, row.id);
      });
    },
  };
};

export type TestClocksService = ReturnType<typeof testClocksService>;
