import type { TestClockStatus } from '@invoicing/contracts';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

export const TestClockEntity = defineEntity({
  name: 'TestClock',
  tableName: 'test_clocks',
  properties: {
    id: p.uuid().primary(),
    /** Always a test space (livemodeOf false). */
    workspaceId: p.uuid(),
    name: p.text().nullable(),
    /** "Now" for the clock's customers; while advancing, the last step committed. */
    frozenTime: p.datetime(3),
    status: p.enum<readonly TestClockStatus[]>(['ready', 'advancing']),
    /** Where an advance goes; null when ready. */
    advanceTo: p.datetime(3).nullable(),
    /** A replica stepping the clock holds it until then; one that died frees it when it passes. */
    claimedUntil: p.datetime(3).nullable(),
    created: p.datetime(3),
  },
});
export type TestClockRow = InferEntity<typeof TestClockEntity>;
