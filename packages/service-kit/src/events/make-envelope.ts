import { randomUUID } from 'node:crypto';
import type { EventEnvelope } from '@invoicing/contracts';

/** A valid billing.invoice.paid envelope for tests, with a fresh id and workspace. */
export const makeEnvelope = (overrides: Partial<EventEnvelope> = {}): EventEnvelope => ({
  id: randomUUID(),
  type: 'billing.invoice.paid',
  occurred_at: new Date().toISOString(),
  workspace_id: randomUUID(),
  correlation_id: 'req-1',
  idempotency_key: null,
  actor_key_id: null,
  data: { n: 1 },
  ...overrides,
});
