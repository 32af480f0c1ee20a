import { AppError, type Orm } from '@invoicing/service-kit';
import type { RecordedResponse } from './idempotency.domain.ts';
import { claimKey, completeClaim, purgeExpiredRecords, releaseClaim, renewClaims, type Claim } from './idempotency.repository.ts';
import { LeaseKeeper } from './lease-keeper.ts';

export type { Claim };

export type BeginOutcome = { kind: 'claimed'; claim: Claim } | { kind: 'replay'; response: RecordedResponse };

export interface IdempotencySettings {
  /**
   * How long a request in flight holds its key unless renewed. The claiming gateway renews it
   * every third of this while the request runs, so only a gateway that died lets it lapse.
   */
  leaseMs: number;
  /** Longest a claim is renewed, whatever happens to its request. */
  maxHoldMs: number;
  ttlHours: number;
  /** Told when renewing leases failed; the next renewal tries again. */
  onRenewalError?: (error: unknown) => void;
}

// A key released (or first recorded) by another request while the claim ran is retried, briefly.
const CLAIM_ATTEMPTS = 3;
// Claims renewed in one statement.
const RENEWAL_BATCH = 200;

export const createIdempotencyService = (orm: Orm, { leaseMs, maxHoldMs, ttlHours, onRenewalError = () => {} }: IdempotencySettings) => {
  const leases = new LeaseKeeper({
    renew: async (claims) => {
      for (let start = 0; start < claims.length; start += RENEWAL_BATCH) await renewClaims(orm, claims.slice(start, start + RENEWAL_BATCH), leaseMs);
    },
    everyMs: Math.floor(leaseMs / 3),
    maxHoldMs,
    onError: onRenewalError,
  });
  /** The claim's lease is renewed until its outcome is written (or that failed). */
  const settle = async (claim: Claim, settling: Promise<void>) => {
    try {
      await settling;
    } finally {
      leases.drop(claim);
    }
  };

  return {
    /**
     * Starts a request with an Idempotency-Key: it either runs (claimed, its lease renewed until
     * it completes or is released), replays the recorded outcome, or is refused with 409 (another
     * body, or the first request still running).
     */
    begin: async (workspaceId: string, key: string, fingerprint: string): Promise<BeginOutcome> => {
      for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt += 1) {
        const attempted = await claimKey(orm, { workspaceId, key, fingerprint, leaseMs, ttlHours });
        if (attempted.kind === 'claimed') {
          leases.keep(attempted.claim);
          return { kind: 'claimed', claim: attempted.claim };
        }
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
    complete: (claim: Claim, response: RecordedResponse) => settle(claim, completeClaim(orm, claim, response)),
    release: (claim: Claim) => settle(claim, releaseClaim(orm, claim)),
    /** Whether the claim is still held by its request here: neither completed nor released. */
    isHeld: (claim: Claim) => leases.keeps(claim),
    purgeExpired: () => purgeExpiredRecords(orm, ttlHours),
    /** Renews no lease any more: the claims of requests still running lapse within one. */
    close: () => leases.stop(),
  };
};

export type IdempotencyService = ReturnType<typeof createIdempotencyService>;
