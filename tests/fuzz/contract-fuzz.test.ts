import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OPERATIONS } from '@invoicing/contracts';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSystem, type TestSystem } from '../support/system.ts';
import { Figures, violationsOf } from './support/checks.ts';
import { collectionPrefixes, jsonApi, seedWorkspace, type SeededWorkspace } from './support/fixtures.ts';
import { createResponseValidator, operationsOf, type DocumentedOperation, type OpenApiDocument, type ResponseValidator } from './support/openapi.ts';
import { describeRequest, requestArbitrary, validRequestArbitrary, type FuzzRequest, type FuzzWorld } from './support/requests.ts';
import { sendRaw, type RawAnswer } from './support/send.ts';

/**
 * Fuzzing from the contract (issue #14): requests to every operation of the served OpenAPI
 * document, valid ones and mutated ones, through the real gateway. FUZZ_RUNS sets how many
 * requests (default 10,000, CI's figure), FUZZ_SEED the seed (fixed, so a run is reproducible).
 */
const REQUESTS = Number(process.env.FUZZ_RUNS ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? 1_411_2026);
/** Requests in flight at once: a fast-check run is one batch of them. */
const BATCH = 20;
/** Rejected writes checked for "nothing changed", one at a time. */
const WRITE_CHECKS = Math.max(100, Math.round(REQUESTS / 40));

let system: TestSystem;
let receiver: Server;
let document: OpenApiDocument;
let operations: DocumentedOperation[];
/**
 * Operations for test keys only (test clocks): the fuzzer's keys are live, so these answer 403
 * before anything else and never succeed; they count as reached, not as succeeded. Their bodies and
 * IDs are fuzzed with test keys by tests/security (abuse limits, the security and mode matrices).
 */
const TEST_MODE_ONLY = new Set(OPERATIONS.filter((operation) => operation.testModeOnly).map((operation) => operation.operationId));
let validator: ResponseValidator;
let own: SeededWorkspace;
let foreign: SeededWorkspace;
let isolated: SeededWorkspace;
let readOnlyKey: string;
let webhookUrl: string;
const errorLines: string[] = [];
const figures = new Figures();
const writeFigures = new Figures();
const usedIdempotencyKeys: string[] = [];
/** Valid (unmutated) requests to each create operation, and how many of them created something. */
const creates = new Map<string, { sent: number; created: number }>();
/**
 * The share of valid invoice creates that must succeed. Drawn from the document alone they still
 * meet rules across resources that no schema states: the customer must be one of the workspace's
 * (the fuzzer names another's or an unknown one about half the time, on purpose), a catalog line's
 * price must be in the invoice's currency, a discount no larger than its line.
 */
const INVOICE_CREATES_MIN_SHARE = 0.1;
/** Why a valid invoice create may still be refused: rules across resources and fields, which no body schema states. */
const CROSS_RESOURCE_RULES = [
  /^404 not_found: No (customer|price) with id/,
  /is in [A-Z]{3}, the invoice in [A-Z]{3}/,
  /\(the rate of price_/,
  /due_date is before the issue date/,
  /quantity × unit_amount is too large/,
  /discount exceeds the line subtotal/,
  /is deleted and cannot be put on an invoice/,
  /is archived and cannot go on a new line/,
  /items subtotal is too large/,
  // Issue #25: an allowance or charge names the VAT group of a line and may not take it below 0;
  // the prepaid amount is at most the total; the tax currency comes with its rate, unlike the invoice's.
  /no line has tax_category [A-Z]+ at tax_rate/,
  /takes the VAT group .* below 0/,
  /is above the total \d+/,
  /needs tax_currency|is required with tax_currency|is the invoice currency [A-Z]{3}; leave it out/,
  /(allowance_total|charge_total|taxable_amount|tax_total|total|the VAT total in tax_currency) is too large/,
  // What no JSON Schema states: an IBAN's mod-97 check digits, and that an invoice's payment means share one type (UBL-SR-47).
  /payment_means\.\*\.(iban|debited_iban) must be an IBAN/,
  /payment_means\.\*\.type must be [a-z_]+ like the first entry/,
  // PostgreSQL's text cannot hold NUL; the document allows any Unicode string.
  /cannot be stored \(for example a NUL character\)/,
];
const INVOICE_CREATES = 200;
interface WorkerCandidate {
  type: string;
  data?: { object?: { subscription?: string | null } };
}
/**
 * Events a background worker fires at its own time, not the request that caused them: the mail
 * worker delivering e-mails an earlier send queued, the overdue sweep, and the subscription
 * scheduler invoicing the periods of subscriptions an earlier request created (its invoices carry
 * `subscription`; it moves the subscription on with `subscription.updated`).
 */
/** In a list: an event a worker fired while the request was judged, or an invoice the subscription scheduler made. */
const isWorkersMaking = (entry: WorkerCandidate & Record<string, unknown>, lateWorkerEvent: (event: WorkerCandidate & { created: string }) => boolean): boolean =>
  entry.object === 'event' ? lateWorkerEvent(entry as unknown as WorkerCandidate & { created: string }) : entry.object === 'invoice' && entry.subscription != null;
/** A subscription's current period moves on when the scheduler invoices it, whatever request is being judged. */
const withoutSchedulersFields = (entry: Record<string, unknown>) =>
  entry?.object === 'subscription' ? { ...entry, current_period_start: undefined, current_period_end: undefined } : entry;
const isWorkersDoing = (event: WorkerCandidate): boolean =>
  ['invoice.sent', 'invoice.reminder_sent', 'message.failed', 'invoice.overdue', 'subscription.updated'].includes(event.type) ||
  (event.type.startsWith('invoice.') && event.data?.object?.subscription != null);

const recordCreate = (request: FuzzRequest, answer: RawAnswer) => {
  if (request.mutation !== 'valid' || request.method !== 'POST' || !/^create/.test(request.operationId)) return;
  const counts = creates.get(request.operationId) ?? { sent: 0, created: 0 };
  counts.sent += 1;
  if (answer.status === 201) counts.created += 1;
  creates.set(request.operationId, counts);
};

const listPaths = () => operations.filter((operation) => operation.method === 'GET').map((operation) => operation.path);

const worldOf = (workspace: SeededWorkspace, other: SeededWorkspace, collectionPrefix: ReadonlyMap<string, string>): FuzzWorld => ({
  document,
  keys: { own: workspace.key, foreign: other.key, readOnly: readOnlyKey },
  own: workspace.ids,
  foreign: other.ids,
  ownTokens: workspace.tokens,
  foreignTokens: other.tokens,
  collectionPrefix,
});

/** Grows the pools with what successful creates return, so later requests name them. */
const remember = (world: FuzzWorld, answer: RawAnswer) => {
  if (answer.status !== 201 || !answer.contentType.startsWith('application/json')) return;
  const id: unknown = JSON.parse(answer.text)?.data?.id;
  if (typeof id !== 'string') return;
  const pool = world.own.get(id.slice(0, id.lastIndexOf('_'))) as string[] | undefined;
  if (pool && pool.length < 50) pool.push(id);
};

const send = async (request: FuzzRequest): Promise<RawAnswer | undefined> => {
  try {
    return await sendRaw(system.gatewayUrl, request);
  } catch (error) {
    // The client library refusing to send (a header it will not encode) is no answer to judge.
    if ((error as { code?: string }).code === 'UND_ERR_INVALID_ARG') return undefined;
    throw new Error(`no answer to ${describeRequest(request)}: ${(error as Error).message}`);
  }
};

beforeAll(async () => {
  receiver = createServer((_request, response) => response.writeHead(204).end());
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  system = await startSystem({
    env: {
      RATE_LIMIT_MAX: '10000000',
      PUBLIC_RATE_LIMIT_MAX: '10000000',
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      // An overdue sweep during a before/after comparison would be a change nobody requested.
      OVERDUE_SWEEP_INTERVAL_MS: '86400000',
    },
    onLogLine: (service, line) => {
      if (/"level":(50|60)/.test(line)) errorLines.push(`${service}: ${line}`);
    },
  });
  document = (await (await fetch(`${system.gatewayUrl}/api/v1/openapi.json`)).json()) as OpenApiDocument;
  operations = operationsOf(document);
  validator = createResponseValidator(document);
  webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  own = await seedWorkspace(system, 'fuzz-own', webhookUrl);
  foreign = await seedWorkspace(system, 'fuzz-foreign', webhookUrl);
  isolated = await seedWorkspace(system, 'fuzz-writes', webhookUrl);
  readOnlyKey = (await system.mintKey(own.slug, 'clients:read,invoices:read')).key;
}, 180_000);

afterAll(async () => {
  if (figures.total > 0) console.log(`\nContract fuzz, seed ${SEED}: requests by operation and status\n\n${figures.render()}\n`);
  if (creates.size > 0) console.log(`\nValid creates drawn from the document that created something:\n${[...creates].map(([operationId, { sent, created }]) => `${operationId.padEnd(24)} ${String(created).padStart(5)} of ${String(sent).padStart(5)} (${Math.round((100 * created) / sent)} %)`).join('\n')}\n`);
  if (writeFigures.total > 0) console.log(`\nRejected writes checked for "nothing changed": requests by operation and status\n\n${writeFigures.render()}\n`);
  validator?.dispose();
  await system?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe('fuzzing every operation from the served OpenAPI document', () => {
  it(`answers ${REQUESTS} valid and mutated requests with declared statuses, problem+json errors and documented bodies, never a 5xx or a hang`, async () => {
    const collectionPrefix = await collectionPrefixes(own.api, listPaths());
    const world = worldOf(own, foreign, collectionPrefix);
    const request = fc.constantFrom(...operations).chain((operation) => requestArbitrary(world, operation, usedIdempotencyKeys));
    await fc.assert(
      fc.asyncProperty(fc.array(request, { minLength: BATCH, maxLength: BATCH }), async (batch) => {
        const answers = await Promise.all(batch.map(send));
        const failures: string[] = [];
        for (const [index, answer] of answers.entries()) {
          const sent = batch[index]!;
          if (!answer) continue;
          figures.record(sent.operationId, sent.mutation, answer.status);
          recordCreate(sent, answer);
          remember(world, answer);
          const key = sent.headers['idempotency-key'];
          if (key && usedIdempotencyKeys.length < 200) usedIdempotencyKeys.push(key);
          const violations = await violationsOf(operations, validator, sent, answer);
          if (violations.length > 0) failures.push(`${describeRequest(sent)}\n  → ${answer.status} ${answer.text.slice(0, 400)}\n  ✗ ${violations.join('\n  ✗ ')}`);
        }
        if (failures.length > 0) throw new Error(`${failures.length} answers break the contract:\n${failures.join('\n')}\nerror lines logged:\n${errorLines.slice(-5).map((line) => line.slice(0, 2000)).join('\n')}`);
      }),
      { seed: SEED, numRuns: Math.ceil(REQUESTS / BATCH), endOnFailure: true },
    );
    expect(figures.total).toBeGreaterThanOrEqual(REQUESTS * 0.99);
    // Every operation was reached, and answered a 2xx at least once: the fuzzer is not only bouncing off validation.
    for (const operation of operations) expect([...figures.statusesOf(operation.operationId).keys()], operation.operationId).not.toHaveLength(0);
    const reachable = operations.filter((operation) => !TEST_MODE_ONLY.has(operation.operationId));
    const succeeded = reachable.filter((operation) => [...figures.statusesOf(operation.operationId).keys()].some((status) => status < 300));
    expect(succeeded.length / reachable.length).toBeGreaterThan(0.8);

    expect(errorLines).toEqual([]);
  }, 600_000);

  it(`creates invoices from the schema alone: at least ${INVOICE_CREATES_MIN_SHARE * 100} % of ${INVOICE_CREATES} valid creates drawn from the document succeed`, async () => {
    // A workspace of its own, as seeded: the first test archives customers and prices at random.
    const fresh = await seedWorkspace(system, 'fuzz-creates', webhookUrl);
    const collectionPrefix = await collectionPrefixes(fresh.api, listPaths());
    const world = worldOf(fresh, foreign, collectionPrefix);
    const operation = operations.find((candidate) => candidate.operationId === 'createInvoice')!;
    const drawn = fc.sample(validRequestArbitrary(world, operation), { numRuns: INVOICE_CREATES, seed: SEED + 2 });
    const answers: RawAnswer[] = [];
    for (let start = 0; start < drawn.length; start += BATCH) answers.push(...(await Promise.all(drawn.slice(start, start + BATCH).map((request) => sendRaw(system.gatewayUrl, request)))));
    const created = answers.filter((answer) => answer.status === 201).length;
    const reasons = new Map<string, number>();
    for (const answer of answers.filter((candidate) => candidate.status !== 201)) {
      const problem = JSON.parse(answer.text) as { code?: string; errors?: { path: string; message: string }[]; detail?: string };
      const reason = problem.errors?.map((error) => `${answer.status} ${problem.code}: ${error.path.replace(/\.\d+\./, '.*.')} ${error.message}`).join('; ') ?? `${answer.status} ${problem.code}: ${problem.detail}`;
      reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
    }
    console.log(`\nInvoice creates drawn from the document alone: ${created} of ${drawn.length} created; the others:\n${[...reasons].sort((a, b) => b[1] - a[1]).map(([reason, count]) => `${String(count).padStart(4)}  ${reason.slice(0, 160)}`).join('\n')}\n`);
    expect(answers.every((answer) => answer.status < 500)).toBe(true);
    // Every refusal names a rule across resources or fields; any other is a rule the document fails to state.
    // One reason per error, each starting with its status (a message may itself hold "; ").
    const unstated = [...reasons.keys()].filter((reason) => !reason.split(/; (?=\d{3} )/).every((part) => CROSS_RESOURCE_RULES.some((rule) => rule.test(part))));
    expect(unstated).toEqual([]);
    expect(created / drawn.length).toBeGreaterThanOrEqual(INVOICE_CREATES_MIN_SHARE);
  }, 120_000);

  it('a rejected write changes nothing: lists, the resource itself and the event log read the same before and after', async () => {
    const api = jsonApi(system.gatewayUrl, isolated.key);
    const collectionPrefix = await collectionPrefixes(api, listPaths());
    const world = worldOf(isolated, foreign, collectionPrefix);
    const writes = operations.filter((operation) => operation.method !== 'GET' && !TEST_MODE_ONLY.has(operation.operationId));
    const documented = new Set(operations.filter((operation) => operation.method === 'GET').map((operation) => operation.path));
    const readBack = async (target: string, since: string) => {
      const segments = target.split('?')[0]!.split('/');
      const collection = segments.slice(0, 4).join('/');
      const reads: Record<string, unknown> = {};
      const lateWorkerEvent = (event: WorkerCandidate & { created: string }) => event.created >= since && isWorkersDoing(event);
      if (documented.has(collection)) {
        const list = (await api('GET', `${collection}?limit=100`)).body;
        // The event log itself grows with the workers' events while the request is judged.
        reads.list = Array.isArray(list?.data) ? { ...list, data: list.data.filter((entry: WorkerCandidate & Record<string, unknown>) => !isWorkersMaking(entry, lateWorkerEvent)).map(withoutSchedulersFields) } : list;
      }
      if (segments.length >= 5 && documented.has(`${collection}/{id}`)) {
        const { status, body } = await api('GET', `${collection}/${segments[4]}`);
        reads.item = { status, body: status < 300 ? { ...body, data: body?.data && withoutSchedulersFields(body.data) } : body?.code };
      }
      reads.account = (await api('GET', '/api/v1/account')).body;
      // Events land asynchronously: those of earlier successful writes may still arrive, so only
      // events that happened after this request was sent count as its doing, and not those of the
      // background workers an earlier write set going (see isWorkersDoing).
      reads.newEvents = ((await api('GET', '/api/v1/events?limit=100')).body?.data ?? []).filter(
        (event: WorkerCandidate & { created: string }) => event.created >= since && !lateWorkerEvent(event),
      );
      return reads;
    };
    const request = fc.constantFrom(...writes).chain((operation) => requestArbitrary(world, operation, usedIdempotencyKeys));
    await fc.assert(
      fc.asyncProperty(request, async (sent) => {
        const since = new Date().toISOString();
        const before = await readBack(sent.target, since);
        const answer = await send(sent);
        if (!answer) return;
        writeFigures.record(sent.operationId, sent.mutation, answer.status);
        remember(world, answer);
        if (answer.status < 400 || !['POST', 'PATCH', 'DELETE'].includes(sent.method)) return;
        const after = await readBack(sent.target, since);
        expect(after, `${describeRequest(sent)} → ${answer.status} ${answer.text.slice(0, 300)}`).toEqual({ ...before, newEvents: [] });
      }),
      { seed: SEED + 1, numRuns: WRITE_CHECKS, endOnFailure: true },
    );
  }, 600_000);
});
