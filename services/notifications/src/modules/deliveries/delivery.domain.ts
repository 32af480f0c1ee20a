import { Webhook } from 'standardwebhooks';

/** A receiver's Retry-After is honoured up to this: an answer of "next month" must not park a delivery for ever. */
export const MAX_RETRY_AFTER_S = 24 * 3600;

/** What one HTTP attempt came to. */
export type AttemptOutcome = 'delivered' | 'gone' | 'failed';

export const outcomeOf = (statusCode: number | null): AttemptOutcome => {
  if (statusCode !== null && statusCode >= 200 && statusCode < 300) return 'delivered';
  if (statusCode === 410) return 'gone';
  return 'failed';
};

/**
 * Seconds a receiver asked us to wait (`Retry-After`: delta-seconds or an HTTP date), capped at
 * MAX_RETRY_AFTER_S; undefined when absent or unreadable.
 */
export const retryAfterSeconds = (header: string | null, now: Date): number | undefined => {
  if (header === null) return undefined;
  const value = header.trim();
  let seconds: number;
  if (/^\d+$/.test(value)) seconds = Number(value);
  else {
    const at = Date.parse(value);
    if (Number.isNaN(at) || !/[a-z]/i.test(value)) return undefined;
    seconds = Math.ceil((at - now.getTime()) / 1000);
  }
  return Math.min(Math.max(seconds, 0), MAX_RETRY_AFTER_S);
};

/**
 * Seconds until the next attempt after `attemptsMade` failed attempts, or undefined when the
 * schedule is spent. `schedule[0]` is the wait before the first attempt, `schedule[n]` the wait
 * after the n-th; a receiver's Retry-After can lengthen a wait, never shorten it.
 */
export const secondsUntilRetry = (schedule: readonly number[], attemptsMade: number, retryAfterS: number | undefined): number | undefined => {
  const scheduled = schedule[attemptsMade];
  if (scheduled === undefined) return undefined;
  return Math.max(scheduled, retryAfterS ?? 0);
};

/** Whether an endpoint failing since `failingSince` has failed long enough to be disabled. */
export const hasFailedTooLong = (failingSince: Date, now: Date, disableAfterS: number): boolean =>
  now.getTime() - failingSince.getTime() >= disableAfterS * 1000;

export interface SignatureHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/**
 * Standard Webhooks headers for one attempt: `v1,<base64 HMAC-SHA256 of id.timestamp.body>` per
 * secret, space-separated, so a receiver holding either secret during a rotation verifies it.
 */
export const signatureHeaders = (webhookId: string, at: Date, body: string, secrets: readonly string[]): SignatureHeaders => ({
  'webhook-id': webhookId,
  'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
  'webhook-signature': secrets.map((secret) => new Webhook(secret).sign(webhookId, at, body)).join(' '),
});
