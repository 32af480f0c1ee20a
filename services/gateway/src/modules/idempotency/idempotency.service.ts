import { AppError, type Orm } from '@invoicing/service-kit';
import type { RecordedResponse } from './idempotency.domain.ts';
import { claimKey, completeClaim, purgeExpiredRecords, releaseClaim, type Claim } from './idempotency.repository.ts';

export type { Claim };

export type BeginOutcome = { kind: 'claimed'; claim: Claim } | { kind: 'replay'; response: RecordedResponse };

export interface IdempotencySettings {
  /** How long an in-flight request holds its key before another may take it over. */
  leaseMs: number;
  ttlHours: number;
}

// A key released (or first recorded) by another request while the claim ran is retried, briefly.
const CLAIM_ATTEMPTS = 3;

export const createIdempotencyService = (orm: Orm, { leaseMs, ttlHours }: IdempotencySettings) => ({
  /**
   * Starts a request with an Idempotency-Key: it either runs (claimed), replays the recorded
   * outcome, or is refused with 409 (another body, or the first request still running).
   */
  begin: async (workspaceId: string, key: string, fingerprint: string): Promise<BeginOutcome> => {
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt += 1) {
      const attempted = await claimKey(orm, { workspaceId, key, fingerprint, leaseMs, ttlHours });
      if (attempted.kind === 'claimed') return { kind: 'claimed', claim: attempted.claim };
      if (attempted.kind === 'released') continue;
      const { record } = attempted;
      if (record.fingerprint !== fingerprint) {
        throw new AppError('idempotency_key_reused', 'This Idempotency-Key was already used with another request (method, path or body); use a new key.');
      }
      if (record.response) return { kind: 'replay', response: record.response };
      break;
    }
    throw new AppError('idempotency_key_in_use', 'A request with this Idempotency-Key is still running; retry once it has finished.');
  },
  complete: (claim: Claim, response: RecordedResponse) => completeClaim(orm, claim, response),
  release: (claim: Claim) => releaseClaim(orm, claim),
  purgeExpired: () => purgeExpiredRecords(orm, ttlHours),
});

export type IdempotencyService = ReturnType<typeof createIdempotencyService>;
