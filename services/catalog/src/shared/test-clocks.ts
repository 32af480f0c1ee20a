import { dataOf, TestClock, toPublicId } from '@invoicing/contracts';
import type { Caller, ServiceClient } from '@invoicing/service-kit';

const TestClockResponse = dataOf(TestClock);

/** Billing's test clocks, read over its API with the caller's identity (so only the caller's space's clocks exist). */
export const testClockReader = (client: ServiceClient) => ({
  exists: async (caller: Caller, id: string): Promise<boolean> => (await client.get(`/api/v1/test_clocks/${toPublicId('testClock', id)}`, caller, TestClockResponse)) !== undefined,
});

export type TestClockReader = ReturnType<typeof testClockReader>;
