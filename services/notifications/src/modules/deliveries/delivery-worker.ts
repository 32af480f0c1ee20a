import { PeriodicTask, type Orm } from '@invoicing/service-kit';
import type { Clock } from '@invoicing/service-kit/clock';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger } from 'fastify';
import type { SecretBox } from '../../shared/secret-box.ts';
import { signingSecrets } from '../endpoints/endpoint.domain.ts';
import { endpointRepository } from '../endpoints/endpoint.repository.ts';
import { eventView } from '../events/event.domain.ts';
import { hasFailedTooLong, outcomeOf, retryAfterSeconds, secondsUntilRetry, signatureHeaders, type AttemptOutcome } from './delivery.domain.ts';
import { deliveryRepository, type AttemptRecord, type ClaimedDelivery, type DeliveryState } from './delivery.repository.ts';
import type { WebhookResponse, WebhookSender } from './webhook-sender.ts';

export interface DeliveryWorkerOptions {
  orm: Orm;
  sender: WebhookSender;
  secrets: SecretBox;
  clock: Clock;
  /** `WEBHOOK_RETRY_SCHEDULE`: seconds before each attempt. */
  schedule: readonly number[];
  /** The deadline of one request; a claim's lease outlasts it. */
  timeoutMs: number;
  concurrency: number;
  /** Requests in flight to one endpoint at most, so a slow one cannot take every slot. */
  perEndpointConcurrency: number;
  pollMs: number;
  disableAfterFailingS: number;
  onError: (error: unknown) => void;
  /** One info line per attempt, under the request id of the API call the event came from. */
  log: FastifyBaseLogger;
}

// Beyond the request deadline, time to record the result before another replica may take the delivery over.
const LEASE_MARGIN_MS = 5_000;
/** After a failed claim the worker waits this long, doubling up to `maxMs` while claims keep failing. */
const BACKOFF = { firstMs: 250, maxMs: 30_000 };

/**
 * Sends due deliveries, up to `concurrency` at a time. Deliveries are claimed from PostgreSQL
 * under a lease (FOR UPDATE SKIP LOCKED), so replicas share the work without sending one attempt
 * twice, and a process that dies mid-send leaves its claims to be retried once their lease runs
 * out. `nudge` after a commit that queued deliveries sends them at once; otherwise the worker
 * looks every `pollMs` for retries that came due.
 */
export class DeliveryWorker {
  readonly #options: DeliveryWorkerOptions;
  readonly #inFlight = new Set<Promise<void>>();
  readonly #loop: PeriodicTask;

  constructor(options: DeliveryWorkerOptions) {
    this.#options = options;
    this.#loop = new PeriodicTask({ intervalMs: options.pollMs, backoff: BACKOFF, onError: options.onError, run: () => this.#claimAndSend() });
  }

  start(): void {
    this.#loop.start();
  }

  /** Looks for due deliveries now: after a commit that queued some, or when slots free up. */
  nudge(): void {
    this.#loop.nudge();
  }

  /** Stops claiming, then waits for the requests in flight (each ends within the request deadline). */
  async stop(): Promise<void> {
    await this.#loop.stop();
    await Promise.allSettled([...this.#inFlight]);
  }

  /** Claims as many due deliveries as there are free slots and sends them without waiting; true when more may be due. */
  async #claimAndSend(): Promise<boolean> {
    const free = this.#options.concurrency - this.#inFlight.size;
    if (free <= 0) return false;
    const claimed = await deliveryRepository(this.#options.orm.em.fork()).claimDue(free, this.#options.timeoutMs + LEASE_MARGIN_MS, this.#options.perEndpointConcurrency);
    for (const delivery of claimed) this.#track(this.#deliver(delivery));
    // A full batch may mean more is due.
    return claimed.length > 0 && claimed.length === free;
  }

  #track(sending: Promise<void>): void {
    const tracked: Promise<void> = sending.catch(this.#options.onError).finally(() => {
      this.#inFlight.delete(tracked);
      // Under load, claim freed slots in batches rather than one query per finished request.
      const free = this.#options.concurrency - this.#inFlight.size;
      if (this.#inFlight.size === 0 || free >= Math.ceil(this.#options.concurrency / 4)) this.nudge();
    });
    this.#inFlight.add(tracked);
  }

  async #deliver(delivery: ClaimedDelivery): Promise<void> {
    const repository = deliveryRepository(this.#options.orm.em.fork());
    if (!delivery.endpointEnabled) return repository.cancelClaimed(delivery);
    const attemptedAt = this.#options.clock.now();
    const response = await this.#send(delivery, attemptedAt);
    const outcome = outcomeOf(response.statusCode);
    const attemptsMade = delivery.attempts + 1;
    const retryInS = outcome === 'failed' ? secondsUntilRetry(this.#options.schedule, attemptsMade, retryAfterSeconds(response.retryAfter, attemptedAt)) : undefined;
    const state: DeliveryState = outcome === 'delivered' ? 'succeeded' : retryInS === undefined ? 'failed' : 'pending';
    const attempt: AttemptRecord = { attemptedAt, url: delivery.url, succeeded: outcome === 'delivered', ...response };
    const record = (em: EntityManager) => deliveryRepository(em).recordAttempt(em, delivery, attempt, state, retryInS ?? null);
    // The common case, a success to an endpoint that was not failing, is one statement: no transaction needed.
    if (outcome === 'delivered' && !delivery.endpointFailing) await record(this.#options.orm.em.fork());
    else {
      await this.#options.orm.em.fork().transactional(async (tx) => {
        await record(tx);
        await this.#judgeEndpoint(tx, delivery.endpointId, outcome, attemptedAt);
      });
    }
    this.#options.log.info(
      {
        request_id: delivery.correlationId ?? undefined,
        workspace_id: delivery.workspaceId,
        delivery_id: delivery.id,
        event_id: delivery.eventId,
        event_type: delivery.eventType,
        endpoint_id: delivery.endpointId,
        attempt: attemptsMade,
        outcome,
        status_code: response.statusCode,
        latency_ms: response.latencyMs,
        ...(retryInS === undefined ? {} : { retry_in_s: retryInS }),
      },
      'webhook delivery attempted',
    );
  }

  async #send(delivery: ClaimedDelivery, at: Date): Promise<WebhookResponse> {
    const event = eventView({ id: delivery.eventId, workspaceId: delivery.workspaceId, type: delivery.eventType, created: delivery.eventCreated, data: delivery.eventData });
    const body = JSON.stringify(event);
    let secrets: string[];
    try {
      const sealed = signingSecrets(delivery.secret, delivery.previousSecret, delivery.previousSecretExpiresAt, at);
      secrets = sealed.map((secret) => this.#options.secrets.open(secret, delivery.endpointId));
    } catch {
      // Nothing unsigned ever leaves: the attempt fails and is retried, in case the key is put back.
      return { statusCode: null, latencyMs: 0, responseBody: null, retryAfter: null, error: 'the signing secret cannot be decrypted (was WEBHOOK_SECRETS_KEY changed?)' };
    }
    return this.#options.sender.send({ url: delivery.url, body, headers: { ...signatureHeaders(event.id, at, body, secrets) } });
  }

  /** A success ends a run of failures; 410 Gone disables the endpoint at once, failing for too long disables it too. */
  async #judgeEndpoint(tx: EntityManager, endpointId: string, outcome: AttemptOutcome, at: Date): Promise<void> {
    const endpoints = endpointRepository(tx);
    if (outcome === 'delivered') return endpoints.markSucceeding(tx, endpointId);
    const failing = await endpoints.markFailing(tx, endpointId, at);
    if (!failing?.enabled) return;
    const reason = outcome === 'gone' ? 'gone' : hasFailedTooLong(failing.failingSince, this.#options.clock.now(), this.#options.disableAfterFailingS) ? 'failing' : undefined;
    if (reason && (await endpoints.disable(tx, endpointId, reason, this.#options.clock.now()))) {
      await deliveryRepository(tx).cancelPendingOf(tx, endpointId);
    }
  }
}
