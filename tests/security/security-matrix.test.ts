import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ID_PREFIX, OPERATIONS, SCOPES } from '@invoicing/contracts';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runOperatorCommand, type MintedKey } from '../../deploy/local/operator.ts';
import { collectionPrefixes, seedWorkspace, type SeededWorkspace } from '../fuzz/support/fixtures.ts';
import { operationsOf, type OpenApiDocument } from '../fuzz/support/openapi.ts';
import { idPrefixOf } from '../fuzz/support/schema-arbitrary.ts';
import { startSystem, type TestSystem } from '../support/system.ts';
import { bearer, collectionOf, expectProblem, idFieldsOf, idOfKind, matrixHarness, toTemplate, withIdAt, type MatrixContext } from './support/matrix-harness.ts';

/**
 * The security matrix (issue #14), generated from the route table in packages/contracts: a new
 * operation is covered here without a line of test. Every operation × every scope it lacks → 403;
 * × an ID of another workspace, in the path and in the body → 404 and nothing changed; × missing,
 * malformed, unknown, revoked and wrong-prefix keys → 401; public links → 404 in constant time;
 * secrets never show up again, in answers or in logs.
 */

let system: TestSystem;
let receiver: Server;
let own: SeededWorkspace;
let foreign: SeededWorkspace;
/** The same two workspaces' test data, for what only test keys reach (test clocks). */
let ownTest: SeededWorkspace;
let foreignTest: SeededWorkspace;
const logLines: string[] = [];
/** Every answer body of this file but those that create a secret, scanned for secrets at the end. */
const answers: string[] = [];
const secrets: string[] = [];
const matrix = { forbidden: 0, crossWorkspace: 0, unauthenticated: 0, publicLinks: 0 };

const scoped = OPERATIONS.filter((operation) => operation.scope !== null);
/** The two workspaces in the mode an operation or an ID kind needs: test clocks exist only in test mode. */
const pairFor = (testOnly: boolean | undefined) => (testOnly ? { mine: ownTest, theirs: foreignTest } : { mine: own, theirs: foreign });
const context = { answers } as MatrixContext;
const { send, requestFor, stateOf, settledStateOf } = matrixHarness(context);

beforeAll(async () => {
  receiver = createServer((_request, response) => response.writeHead(204).end());
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  system = await startSystem({
    env: { RATE_LIMIT_MAX: '1000000', PUBLIC_RATE_LIMIT_MAX: '1000000', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', OVERDUE_SWEEP_INTERVAL_MS: '86400000' },
    // The most any operator would turn on: whatever is logged at debug must still hold no secret.
    logLevel: 'debug',
    onLogLine: (service, line) => logLines.push(`${service}: ${line}`),
  });
  context.gatewayUrl = system.gatewayUrl;
  context.document = (await (await fetch(`${system.gatewayUrl}/api/v1/openapi.json`)).json()) as OpenApiDocument;
  context.documented = new Map(operationsOf(context.document).map((operation) => [operation.operationId, operation]));
  const webhookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  own = await seedWorkspace(system, 'matrix-own', webhookUrl);
  foreign = await seedWorkspace(system, 'matrix-foreign', webhookUrl);
  ownTest = await seedWorkspace(system, 'matrix-own', webhookUrl, { mode: 'test', slug: own.slug });
  foreignTest = await seedWorkspace(system, 'matrix-foreign', webhookUrl, { mode: 'test', slug: foreign.slug });
  secrets.push(...[own, foreign, ownTest, foreignTest].flatMap((seeded) => [seeded.key, ...seeded.webhookSecrets]));
  // A test key reads every collection, test clocks too.
  context.prefixes = await collectionPrefixes(ownTest.api, OPERATIONS.filter((operation) => operation.method === 'GET').map((operation) => operation.path));
}, 180_000);

afterAll(async () => {
  console.log(`\nSecurity matrix: ${matrix.forbidden} scope checks (403), ${matrix.crossWorkspace} cross-workspace IDs (404), ${matrix.unauthenticated} bad credentials (401), ${matrix.publicLinks} public-link probes (404); ${answers.length} answers and ${logLines.length} log lines scanned for ${secrets.length} secrets\n`);
  await system?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe('the security matrix, from the route table', () => {
  it('covers every operation the gateway serves', () => {
    expect(new Set(context.documented.keys())).toEqual(new Set(OPERATIONS.map((operation) => operation.operationId)));
    for (const operation of OPERATIONS) expect(context.documented.get(operation.operationId)?.path, operation.operationId).toBe(toTemplate(operation.path));
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
    const before = [await stateOf(foreign), await stateOf(foreignTest)];
    for (const operation of scoped.filter((candidate) => candidate.path.includes(':id'))) {
      const { mine, theirs: other } = pairFor(operation.testModeOnly);
      const prefix = context.prefixes.get(collectionOf(operation.path))!;
      const theirs = other.ids.get(prefix)![0]!;
      const { path, headers, body } = requestFor(operation, mine, theirs);
      const sent = await send(operation.method, path, { ...bearer(mine.key), ...headers }, body);
      expectProblem(sent, 404, 'not_found', `${operation.operationId} on ${theirs} of another workspace`);
      matrix.crossWorkspace += 1;
    }
    expect([await stateOf(foreign), await stateOf(foreignTest)]).toEqual(before);
  }, 120_000);

  it('every operation × an ID of another workspace in the body or a list filter → 404 (an empty list for filters), and nothing changed', async () => {
    let checked = 0;
    for (const operation of scoped) {
      const schema = context.documented.get(operation.operationId)!;
      const fields = schema.body ? idFieldsOf(context.document, schema.body.schema) : [];
      for (const field of fields) {
        const { mine, theirs } = pairFor(operation.testModeOnly || field.prefix === ID_PREFIX.testClock);
        const { path, headers, body } = requestFor(operation, mine);
        const base = withIdAt(body, field, theirs.ids.get(field.prefix)![0]!);
        const before = await settledStateOf(mine);
        const sent = await send(operation.method, path, { ...bearer(mine.key), ...headers }, base);
        expectProblem(sent, 404, 'not_found', `${operation.operationId} with ${field.path.join('.')} of another workspace`);
        expect(await stateOf(mine)).toEqual(before);
        // The control: the same request naming this workspace's own gets past the lookup.
        const control = requestFor(operation, mine);
        const controlBody = withIdAt(control.body, field, idOfKind(mine, field.prefix));
        expect((await send(operation.method, control.path, { ...bearer(mine.key), ...control.headers }, controlBody)).status, `${operation.operationId} with its own IDs`).toBeLessThan(300);
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
