import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './api-schema.generated.ts';
import { IDEMPOTENCY_KEYED } from './idempotency.generated.ts';

export type { components, paths } from './api-schema.generated.ts';
export { WebhookVerificationError } from 'standardwebhooks';
export { verifyWebhook, type WebhookEvent } from './verify-webhook.ts';
export { InvoicingApiError, isApiError, unwrap, type Problem } from './errors.ts';
export { paginate } from './paginate.ts';

export type InvoicingClient = Client<paths>;

export interface RetryPolicy {
  /** Attempts after the first; 0 turns retries off. */
  retries: number;
  /** First backoff; each retry doubles it, with jitter, up to `maxDelayMs`. */
  baseDelayMs: number;
  maxDelayMs: number;
}

export interface InvoicingClientOptions {
  /** The gateway's origin, such as `https://api.example.com`. */
  baseUrl: string;
  /** An API key, `inv_live_…` (or a test key, `inv_test_…`); none for the public routes alone. */
  apiKey?: string;
  retry?: Partial<RetryPolicy>;
  /** For tests and runtimes with their own fetch. */
  fetch?: (request: Request) => Promise<Response>;
}

const DEFAULT_RETRY: RetryPolicy = { retries: 3, baseDelayMs: 200, maxDelayMs: 5_000 };
const IDEMPOTENCY_HEADER = 'Idempotency-Key';

/** A `Retry-After` in seconds or as an HTTP date, in ms from now. */
const retryAfterMs = (response: Response): number | undefined => {
  const header = response.headers.get('retry-after');
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
};

/** Another request under the same key is still running: once it ends, the same key gets its answer. */
const isKeyInUse = async (response: Response): Promise<boolean> => {
  if (response.status !== 409) return false;
  const problem = (await response.clone().json().catch(() => undefined)) as { code?: unknown } | undefined;
  return problem?.code === 'idempotency_key_in_use';
};

const shouldRetry = async (response: Response) => response.status === 429 || response.status === 503 || (await isKeyInUse(response));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The loop is hand-made rather than p-retry (9.0.0) for two reasons: a 429 names its own wait in
 * Retry-After, and p-retry's delays come only from its schedule; and its `randomize` multiplies
 * by 1–2 then caps at `maxTimeout`, so clients that reached the cap retry in step, where the
 * spread below (half to all of the backoff) keeps them apart.
 *
 * Sends a request again only when doing so cannot do something twice: a read, or a write under
 * an Idempotency-Key (the gateway answers a repeat with the first outcome). A lost connection,
 * 429 (after its Retry-After), 503 and a key still in use are retried; anything else is final.
 */
const retryingFetch = (send: (request: Request) => Promise<Response>, policy: RetryPolicy) => async (request: Request): Promise<Response> => {
  const repeatable = request.method === 'GET' || request.method === 'HEAD' || request.headers.has(IDEMPOTENCY_HEADER);
  if (!repeatable || policy.retries === 0) return send(request);
  for (let attempt = 0; ; attempt++) {
    const last = attempt === policy.retries;
    const backoff = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt) * (0.5 + Math.random() / 2);
    let response: Response;
    try {
      response = await send(request.clone());
    } catch (error) {
      if (last || request.signal.aborted) throw error;
      await sleep(backoff);
      continue;
    }
    if (last || !(await shouldRetry(response))) return response;
    await response.body?.cancel();
    await sleep(Math.min(policy.maxDelayMs, retryAfterMs(response) ?? backoff));
  }
};

/**
 * A typed client of the Invoicing API. Every write that takes an Idempotency-Key gets a fresh
 * one unless the caller passed their own (pass one to retry a write across process restarts),
 * and requests that are safe to repeat are retried with backoff.
 */
export const createInvoicingClient = ({ baseUrl, apiKey, retry, fetch: send = globalThis.fetch }: InvoicingClientOptions): InvoicingClient => {
  const client = createClient<paths>({
    baseUrl,
    headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
    fetch: retryingFetch(send, { ...DEFAULT_RETRY, ...retry }),
  });
  client.use({
    onRequest: ({ request, schemaPath }) => {
      if (IDEMPOTENCY_KEYED[`${request.method} ${schemaPath}`] === undefined || request.headers.has(IDEMPOTENCY_HEADER)) return undefined;
      request.headers.set(IDEMPOTENCY_HEADER, crypto.randomUUID());
      return request;
    },
  });
  return client;
};

export type Invoice = components['schemas']['Invoice'];
export type Customer = components['schemas']['Customer'];
