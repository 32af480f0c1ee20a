import { parsePublicId, toPublicId, type CreateCustomerBody, type ListCustomersQuery, type UpdateCustomerBody } from '@invoicing/contracts';
import { loadByPublicId, notFound, type Caller, type Clock, type CursorCodec } from '@invoicing/service-kit';
import type { EntityManager } from '@mikro-orm/postgresql';
import { changeByPublicId } from '../../shared/by-public-id.ts';
import { archivedCustomer, customerChanges, customerView, newCustomer } from './customer.domain.ts';
import { CustomerEntity, type CustomerRow } from './customer.entity.ts';
import { customerRepository } from './customer.repository.ts';
import type { TestClockReader } from '../../shared/test-clocks.ts';

export const customerService = (em: EntityManager, clock: Clock, cursors: CursorCodec, testClocks: TestClockReader) => {
  const customers = customerRepository(em);

  const changeCustomer = async (workspaceId: string, publicId: string, change: (row: CustomerRow) => Partial<CustomerRow>) => ({
    data: customerView(await changeByPublicId(em, CustomerEntity, 'customer', workspaceId, publicId, change)),
  });

  return {
    list: async (workspaceId: string, query: ListCustomersQuery) => {
      const filter = { q: query.q, includeDeleted: query.include_deleted, metadata: query.metadata };
      const pages = cursors.forList('customers', workspaceId);
      const rows = await customers.pageNewestFirstQuery(workspaceId, filter, pages.positionOf(query.cursor), query.limit).getResultList();
      return pages.toPage(rows, query.limit, customerView);
    },

    /** `caller`: whose identity asks billing whether `test_clock` names a clock of the workspace's space. */
    create: async (workspaceId: string, body: CreateCustomerBody, caller: Caller) => {
      const testClockId = body.test_clock ?? null;
      if (testClockId !== null && !(await testClocks.exists(caller, testClockId))) throw notFound('test_clock', toPublicId('testClock', testClockId));
      const row = customers.add(newCustomer(workspaceId, body, clock.now(), testClockId));
      await em.flush();
      return { data: customerView(row) };
    },

    retrieve: async (workspaceId: string, publicId: string) => ({
      data: customerView(await loadByPublicId('customer', publicId, (id) => customers.findInWorkspace(workspaceId, id))),
    }),

    update: (workspaceId: string, publicId: string, patch: UpdateCustomerBody) =>
      changeCustomer(workspaceId, publicId, (row) => customerChanges(row, patch)),

    archive: (workspaceId: string, publicId: string) => changeCustomer(workspaceId, publicId, archivedCustomer),

    /** A deleted test clock's customers go with it (billing asks, over the internal route). */
    removeOfTestClock: async (workspaceId: string, publicClockId: string) => {
      const testClockId = parsePublicId('testClock', publicClockId);
      if (testClockId === undefined) throw notFound('test_clock', publicClockId);
      return { data: { count: await customers.removeOfTestClock(workspaceId, testClockId) } };
    },
  };
};

export type CustomerService = ReturnType<typeof customerService>;
