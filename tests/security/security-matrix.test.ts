import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ID_PREFIX, OPERATIONS, SCOPES, type Operation } from '@invoicing/contracts';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOperatorCommand, type MintedKey } from '../../deploy/local/operator.ts';
import { collectionPrefixes, jsonApi, seedWorkspace, type SeededWorkspace } from '../fuzz/support/fixtures.ts';
import { operationsOf, type DocumentedOperation, type OpenApiDocument } from '../fuzz/support/openapi.ts';
import { idPrefixOf, minimalValueOf } from '../fuzz/support/schema-arbitrary.ts';
import { startSystem, type TestSystem } from '../support/system.ts';

/**
 * The security matrix (issue #14), generated from the route table in packages/contracts: a new
 * operation is covered here without a line of test. Every operation × every scope it lacks → 403;
 * × an ID of another workspace, in the path and in the body → 404 and nothing changed; × missing,
 * malformed, unknown, revoked and wrong-prefix keys → 401; public links → 404 in constant time;
 * secrets never show up again, in answers or in logs.
 */

let system: TestSystem;
let receiver: Server;
let document: OpenApiDocument;
let documented: Map<string, DocumentedOperation>;
let own: SeededWorkspace;
let foreign: SeededWorkspace;
let prefixes: Map<string, string>;
const logLines: string[] = [];
/** Every answer body of this file but those that create a secret, scanned for secrets at the end. */
const answers: string[] = [];
const secrets: string[] = [];
const matrix = { forbidden: 0, crossWorkspace: 0, unauthenticated: 0, publicLinks: 0 };

const scoped = OPERATIONS.filter((operation) => operation.scope !== null);
const toTemplate = (path: string) => path.replace(/:([A-Za-z_]+)/g, '{$1}');
const collectionOf = (path: string) => path.split('/').slice(0, 4).join('/');

interface Sent {
  status: number;
  contentType: string;
  text: string;
  json: any;
}

const send = async (method: string, path: string, headers: Record<string, string>, body?: unknown, { keep = true } = {}): Promise<Sent> => {
  const response = await fetch(`${system.gatewayUrl}${path}`, {
    method,
    headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  if (keep) answers.push(text);
  let json: unknown;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: response.status, contentType: response.headers.get('content-type') ?? '', text, json };
};

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** A request to the operation that would succeed for a key with its scope: real IDs of `workspace`, a valid minimal body. */
const requestFor = (operation: Operation, workspace: SeededWorkspace, idOverride?: string) => {
  const path = operation.path.replace(/:([A-Za-z_]+)/g, (_, name: string) => {
    if (idOverride) return idOverride;
    if (name === 'token') return workspace.tokens[0]!;
    // A statement's entry: the seed's last one, which no invoice took (it can still be matched by hand).
    if (name === 'entry_id') return workspace.ids.get('bse')!.at(-1)!;
    // A supporting document: the one seeded on the draft.
    if (name === 'att_id') return workspace.ids.get('att')![0]!;
    // Test clocks live in test spaces only and the seeds are live: a well-formed ID of none (a live key gets 403 before any lookup).
    if (operation.testModeOnly) return `${ID_PREFIX.testClock}_${'0'.repeat(32)}`;
    const prefix = prefixes.get(collectionOf(operation.path))!;
    return workspace.ids.get(prefix)![0]!;
  });
  const body = documented.get(operation.operationId)?.body;
  return {
    path,
    headers: (operation.idempotency === 'none' ? {} : { 'idempotency-key': randomUUID() }) as Record<string, string>,
    // An invoice named in a body is the open one (a payment's or a statement entry's target); other kinds, the first seeded.
    body: body ? minimalValueOf(document, body.schema, (prefix) => (prefix === 'in' ? workspace.invoices.open : workspace.ids.get(prefix)![0]!)) : undefined,
  };
};

/** Everything a workspace holds, as its lists and its account read. */
const stateOf = async (workspace: SeededWorkspace) => {
  const reads: Record<string, unknown> = {};
  // Test clocks are no state of a live workspace (a live key gets 403): the seeds are live.
  for (const operation of OPERATIONS.filter((candidate) => candidate.method === 'GET' && candidate.scope && !candidate.path.includes(':') && !candidate.testModeOnly)) {
    const { json } = await send('GET', operation.path.includes('numbering/verify') ? operation.path : `${operation.path}${operation.path.endsWith('account') || operation.path.includes('numbering') ? '' : '?limit=100'}`, bearer(workspace.key), undefined, { keep: false });
    // The time a verification ran is not state.
    if (json?.data?.checked_at) delete json.data.checked_at;
    reads[operation.operationId] = json;
  }
  return reads;
};

/**
 * The workspace's state once the events of earlier requests have reached its event log: they
 * arrive through the outbox and the bus, after the request that caused them has answered, so a
 * state read too early would see them appear during the next check. Read until two reads 300 ms
 * apart agree (5 s at most).
 */
const settledStateOf = async (workspace: SeededWorkspace) => {
  const deadline = Date.now() + 5_000;
  let state = await stateOf(workspace);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const again = await stateOf(workspace);
    if (JSON.stringify(again) === JSON.stringify(state) || Date.now() > deadline) return again;
    state = again;
  }
};

const expectProblem = (sent: Sent, status: number, code: string, what: string) => {
  expect({ status: sent.status, code: sent.json?.code, problem: sent.contentType.startsWith('application/problem+json') }, what).toEqual({ status, code, problem: true });
};

beforeAll(async () => {
  receiver = createServer((_request, response) => response.writeHead(204).end());
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  system = await startSystem({
    env: { RATE_LIMIT_MAX: '1000000', PUBLIC_RATE_LIMIT_MAX: '1000000', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', OVERDUE_SWEEP_INTERVAL_MS: '86400000' },
    // The most any operator would turn on: whatever is logged at debug must still hold no secret.
    logLevel: 'debug',
    onLogLine: (service, line) => logLines.push(`${service}: ${line}`),
  });
  document = (await (await fetch(`${system.gatewayUrl}/api/v1/openapi.json`)).json()) as OpenApiDocument;
  documented = new Map(operationsOf(document).map((operation) => [operation.operationId, operation]));
  const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  own = await seedWorkspace(system, 'matrix-own', webhookUrl);
  foreign = await seedWorkspace(system, 'matrix-foreign', webhookUrl);
  secrets.push(own.key, foreign.key, ...own.webhookSecrets, ...foreign.webhookSecrets);
  prefixes = await collectionPrefixes(own.api, OPERATIONS.filter((operation) => operation.method === 'GET').map((operation) => operation.path));
}, 180_000);

afterAll(async () => {
  console.log(`\nSecurity matrix: ${matrix.forbidden} scope checks (403), ${matrix.crossWorkspace} cross-workspace IDs (404), ${matrix.unauthenticated} bad credentials (401), ${matrix.publicLinks} public-link probes (404); ${answers.length} answers and ${logLines.length} log lines scanned for ${secrets.length} secrets\n`);
  await system?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe('the security matrix, from the route table', () => {
  it('covers every operation the gateway serves', () => {
    expect(new Set(documented.keys())).toEqual(new Set(OPERATIONS.map((operation) => operation.operationId)));
    for (const operation of OPERATIONS) expect(documented.get(operation.operationId)?.path, operation.operationId).toBe(toTemplate(operation.path));
  });

  it('every operation × every scope it lacks → 403 forbidden, and nothing changed', async () => {
    const keys = new Map<string, MintedKey>();
    const wanted = SCOPES.flatMap((scope) => [[`only ${scope}`, scope], [`all but ${scope}`, SCOPES.filter((other) => other !== scope).join(',')]] as const);
    for (let start = 0; start < wanted.length; start += 6) {
      const minted = await Promise.all(wanted.slice(start, start + 6).map(([, scopes]) => system.mintKey(own.slug, scopes)));
      minted.forEach((key, index) => keys.set(wanted[start + index]![0], key));
    }
    secrets.push(...[...keys.values()].map((minted) => minted.key));
    const before = await stateOf(own);
    for (const operation of scoped) {
      for (const [label, minted] of keys) {
        if (label === `only ${operation.scope}`) continue;
        if (label.startsWith('all but') && label !== `all but ${operation.scope}`) continue;
        const { path, headers, body } = requestFor(operation, own);
        const sent = await send(operation.method, path, { ...bearer(minted.key), ...headers }, body);
        expectProblem(sent, 403, 'forbidden', `${operation.operationId} with a key holding ${label}`);
        matrix.forbidden += 1;
      }
    }
    expect(await stateOf(own)).toEqual(before);
  }, 120_000);

  it('every operation × an ID of another workspace in the path → 404, and the other workspace is unchanged', async () => {
    const before = await stateOf(foreign);
    // Test-mode-only operations answer a live key 403 before any lookup; another test space's clock is
    // a 404 in services/billing/test/test-clocks.test.ts.
    for (const operation of scoped.filter((candidate) => candidate.path.includes(':id') && !candidate.testModeOnly)) {
      const prefix = prefixes.get(collectionOf(operation.path))!;
      const theirs = foreign.ids.get(prefix)![0]!;
      const { path, headers, body } = requestFor(operation, own, theirs);
      const sent = await send(operation.method, path, { ...bearer(own.key), ...headers }, body);
      expectProblem(sent, 404, 'not_found', `${operation.operationId} on ${theirs} of another workspace`);
      matrix.crossWorkspace += 1;
    }
    expect(await stateOf(foreign)).toEqual(before);
  }, 120_000);

  it('every operation × an ID of another workspace in the body or a list filter → 404 (an empty list for filters), and nothing changed', async () => {
    let checked = 0;
    for (const operation of scoped) {
      const schema = documented.get(operation.operationId)!;
      // Each ID field the request schema declares: at the top, or inside the items of an array.
      const fields: { path: (string | number)[]; prefix: string }[] = [];
      const walk = (raw: unknown, at: (string | number)[], depth: number) => {
        if (depth > 4 || !raw || typeof raw !== 'object') return;
        const node = raw as { $ref?: string; properties?: Record<string, unknown>; items?: unknown; anyOf?: unknown[]; example?: unknown; type?: unknown };
        const resolved = node.$ref ? document.components.schemas[node.$ref.replace('#/components/schemas/', '')] : node;
        const prefix = idPrefixOf(node as never);
        if (prefix && at.length > 0) fields.push({ path: at, prefix });
        for (const alternative of (resolved as typeof node)?.anyOf ?? []) walk(alternative, at, depth + 1);
        for (const [name, child] of Object.entries((resolved as typeof node)?.properties ?? {})) walk(child, [...at, name], depth + 1);
        if ((resolved as typeof node)?.items) walk((resolved as typeof node).items, [...at, 0], depth + 1);
      };
      if (schema.body) walk(schema.body.schema, [], 0);
      // A `clock_` ID names a test clock, which only test spaces have (the seeds are live): billing shows
      // no clock of another space (services/billing/test/test-clocks.test.ts), and catalog refuses with 404
      // a clock billing does not show the caller (customer.routes.test.ts).
      for (const field of fields.filter((candidate) => candidate.prefix !== ID_PREFIX.testClock)) {
        const { path, headers, body } = requestFor(operation, own);
        const base = (body ?? {}) as Record<string, any>;
        let target: any = base;
        for (const key of field.path.slice(0, -1)) {
          target[key] ??= typeof field.path[field.path.indexOf(key) + 1] === 'number' ? [{}] : {};
          target = target[key];
        }
        target[field.path.at(-1)!] = foreign.ids.get(field.prefix)![0]!;
        const before = await settledStateOf(own);
        const sent = await send(operation.method, path, { ...bearer(own.key), ...headers }, base);
        expectProblem(sent, 404, 'not_found', `${operation.operationId} with ${field.path.join('.')} of another workspace`);
        expect(await stateOf(own)).toEqual(before);
        // The control: the same request naming this workspace's own gets past the lookup.
        const control = requestFor(operation, own);
        expect((await send(operation.method, control.path, { ...bearer(own.key), ...control.headers }, control.body)).status, `${operation.operationId} with its own IDs`).toBeLessThan(300);
        matrix.crossWorkspace += 1;
        checked += 1;
      }
      for (const parameter of schema.queryParams.filter((candidate) => idPrefixOf(candidate.schema))) {
        const theirs = foreign.ids.get(idPrefixOf(parameter.schema)!)![0]!;
        const sent = await send('GET', `${requestFor(operation, own).path}?${parameter.name}=${theirs}`, bearer(own.key));
        expect({ status: sent.status, data: sent.json?.data }, `${operation.operationId}?${parameter.name}=<another workspace's>`).toEqual({ status: 200, data: [] });
        matrix.crossWorkspace += 1;
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(4);
  }, 120_000);

  it('every operation × missing, malformed, unknown, revoked, wrong-prefix and wrong-secret keys → 401', async () => {
    const revoked = await system.mintKey(own.slug, 'all');
    secrets.push(revoked.key);
    expect((await send('GET', '/api/v1/account', bearer(revoked.key))).status).toBe(200);
    await runOperatorCommand(['keys', 'revoke', revoked.key_id], system.databaseUrl, { PATH: process.env.PATH ?? '' });
    const deadline = Date.now() + 10_000;
    while ((await send('GET', '/api/v1/account', bearer(revoked.key))).status !== 401 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const base62 = (length: number) => [...randomBytes(length)].map((byte) => '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'[byte % 62]).join('');
    const credentials: Record<string, Record<string, string>> = {
      missing: {},
      'empty bearer': { authorization: 'Bearer ' },
      'another scheme': { authorization: `Basic ${Buffer.from(`user:${own.key}`).toString('base64')}` },
      'the key without a scheme': { authorization: own.key },
      malformed: { authorization: 'Bearer not-a-key' },
      'too long': { authorization: `Bearer ${own.key}${'x'.repeat(4000)}` },
      unknown: bearer(`inv_live_${base62(65)}`),
      revoked: bearer(revoked.key),
      'wrong prefix': bearer(own.key.replace('inv_live_', 'inv_test_')),
      'right id, wrong secret': bearer(`${own.key.slice(0, 'inv_live_'.length + 22)}${base62(43)}`),
    };
    for (const operation of scoped) {
      for (const [label, headers] of Object.entries(credentials)) {
        const request = requestFor(operation, own);
        const sent = await send(operation.method, request.path, { ...headers, ...request.headers }, request.body);
        expectProblem(sent, 401, 'unauthenticated', `${operation.operationId} with a ${label} key`);
        matrix.unauthenticated += 1;
      }
    }
  }, 120_000);

  it("the public page and its downloads with a draft's, a rotated or a guessed token → 404, in the same time", async () => {
    const publicOperations = OPERATIONS.filter((operation) => operation.scope === null && operation.path.includes(':token'));
    expect(publicOperations.length).toBeGreaterThanOrEqual(2);
    // A draft never shows a token; give one a token in the database, as a finalize that rolled back might have.
    const draftToken = randomBytes(24).toString('base64url');
    const client = new pg.Client({ connectionString: system.databaseUrl });
    await client.connect();
    try {
      const { rowCount } = await client.query(`update billing.invoices set public_url_token = $1 where id = $2 and status = 'draft'`, [draftToken, own.invoices.draft.replace(/^in_(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5')]);
      expect(rowCount).toBe(1);
    } finally {
      await client.end();
    }
    const rotatedToken = own.tokens[0]!;
    const rotate = await send('POST', `/api/v1/invoices/${own.invoices.open}/public_link/rotate`, { ...bearer(own.key), 'idempotency-key': randomUUID() });
    expect(rotate.status).toBe(200);
    const current: string = rotate.json.data.public_url_token;
    expect((await send('GET', `/i/${current}`, {})).status).toBe(200);
    const classes: Record<string, () => string> = {
      "draft's": () => draftToken,
      rotated: () => rotatedToken,
      guessed: () => randomBytes(24).toString('base64url'),
      'one character off': () => `${current.slice(0, -1)}${current.endsWith('A') ? 'B' : 'A'}`,
    };
    for (const operation of publicOperations) {
      const samples = new Map<string, number[]>(Object.keys(classes).map((name) => [name, []]));
      for (let round = 0; round < 30; round += 1) {
        for (const [name, token] of Object.entries(classes)) {
          const started = performance.now();
          const sent = await send('GET', operation.path.replace(':token', token()), {});
          const elapsed = performance.now() - started;
          expectProblem(sent, 404, 'not_found', `${operation.operationId} with a ${name} token`);
          if (round >= 5) samples.get(name)!.push(elapsed);
          matrix.publicLinks += 1;
        }
      }
      const medians = [...samples.entries()].map(([name, times]) => [name, times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!] as const);
      const fastest = Math.min(...medians.map(([, median]) => median));
      const slowest = Math.max(...medians.map(([, median]) => median));
      // A lookup that stops early for some kind of token would show as a gap between the medians.
      expect(slowest - fastest, `${operation.operationId} medians ${JSON.stringify(Object.fromEntries(medians))}`).toBeLessThan(Math.max(2, fastest * 0.5));
    }
  }, 120_000);

  it('secrets never appear after the answer that created them: not in reads, error details or logs', async () => {
    const rotated = await send('POST', `/api/v1/webhook_endpoints/${own.ids.get('we')![0]}/rotate_secret`, { ...bearer(own.key), 'idempotency-key': randomUUID() }, undefined, { keep: false });
    expect(rotated.status).toBe(200);
    expect(rotated.json.data.secret).toMatch(/^whsec_/);
    secrets.push(rotated.json.data.secret);
    const endpoint = own.ids.get('we')![0]!;
    for (const path of [`/api/v1/webhook_endpoints/${endpoint}`, '/api/v1/webhook_endpoints', '/api/v1/events?limit=100']) {
      const sent = await send('GET', path, bearer(own.key));
      expect(sent.status).toBe(200);
      expect(sent.text).not.toContain('whsec_');
      expect(sent.text).not.toContain('"secret"');
    }
    const patched = await send('PATCH', `/api/v1/webhook_endpoints/${endpoint}`, { ...bearer(own.key), 'idempotency-key': randomUUID() }, { description: 'patched' });
    expect(patched.status).toBe(200);
    expect(patched.text).not.toContain('whsec_');
    const mistaken = [own.key, rotated.json.data.secret as string];
    // Secrets sent in bodies and headers where they do not belong come back in no error detail and are not logged.
    for (const secret of mistaken) {
      await send('POST', '/api/v1/customers', { ...bearer(own.key), 'idempotency-key': randomUUID() }, { name: 'x', email: secret, unknown: secret });
      await send('POST', '/api/v1/customers', { ...bearer(own.key), 'idempotency-key': randomUUID() }, { name: secret, address: { country: secret } });
      await send('GET', '/api/v1/customers', { authorization: `Bearer ${secret} ${secret}` });
      await send('GET', '/api/v1/customers', { authorization: `Bearer ${secret}x` });
      await send('PATCH', '/api/v1/account', { ...bearer(own.key), 'idempotency-key': secret }, { email: secret });
    }
    // Let the last lines of every service arrive.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(logLines.length).toBeGreaterThan(100);
    const secretParts = secrets.flatMap((secret) => (secret.startsWith('inv_live_') ? [secret, secret.slice(-43)] : [secret, secret.slice('whsec_'.length)]));
    const leaks = (texts: string[]) => texts.flatMap((text) => secretParts.filter((part) => text.includes(part)).map(() => text.slice(0, 300)));
    expect(leaks(logLines), 'log lines holding a secret').toEqual([]);
    // A secret pasted into a URL is the caller's to log (access logs keep URLs), but no error detail repeats it.
    for (const secret of mistaken) {
      await send('GET', `/api/v1/customers?limit=${encodeURIComponent(secret)}&cursor=${encodeURIComponent(secret)}`, bearer(own.key));
      await send('GET', `/api/v1/customers/${encodeURIComponent(secret)}`, bearer(own.key));
      await send('GET', `/api/v1/invoices?customer=${encodeURIComponent(secret)}`, bearer(own.key));
      await send('GET', `/i/${encodeURIComponent(secret)}`, {});
    }
    expect(leaks(answers), 'answers holding a secret').toEqual([]);
  }, 60_000);
});
