import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase, freePort, freePortBase } from '@invoicing/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintApiKey } from '../../deploy/local/operator.ts';
import { NODE } from '../../deploy/local/service-process.ts';
import { startSystem, type TestSystem } from '../support/system.ts';

/**
 * Clients of the API as people outside this repository make them (issue 20): generated from the
 * served document by two generators nobody here wrote, the packed @invoicing/client installed
 * from its tarball on Node 20 and 24, and the README's quick start run command by command.
 */
const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');
const BIN = {
  heyApi: join(ROOT, 'node_modules/@hey-api/openapi-ts/bin/run.js'),
  orval: join(ROOT, 'node_modules/orval/dist/bin/orval.mjs'),
  tsc: join(ROOT, 'node_modules/typescript/bin/tsc'),
  npm: 'npm',
};
/** The machine's own Node.js (20 on CI), beside the repository's Node 24. */
const SYSTEM_NODE = '/usr/bin/node';
/**
 * The machine's trust and proxy settings, passed on: under `npm test` the `npm` below runs on the
 * repository's Node 24, whose prefix has no global npmrc, so a `cafile` the machine's npm keeps there
 * is not read and a registry behind a TLS-inspecting proxy fails with SELF_SIGNED_CERT_IN_CHAIN.
 */
const NETWORK_ENV = Object.fromEntries(
  ['NODE_EXTRA_CA_CERTS', 'SSL_CERT_FILE', 'HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY', 'https_proxy', 'http_proxy', 'no_proxy'].flatMap((name) => (process.env[name] ? [[name, process.env[name]]] : [])),
);
const ENV = { ...NETWORK_ENV, PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), REDOCLY_TELEMETRY: 'off', NO_UPDATE_NOTIFIER: '1', npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };

let system: TestSystem;
let key: string;
let work: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  system = await startSystem({ env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1,localhost', WEBHOOK_RETRY_SCHEDULE: '0,1,1' }, ownNats: true });
  key = (await system.mintKey('clients', 'all')).key;
  work = mkdtempSync(join(tmpdir(), 'clients-'));
  writeFileSync(join(work, 'openapi.json'), await (await fetch(`${system.gatewayUrl}/api/v1/openapi.json`)).text());
}, 180_000);

afterAll(async () => {
  for (const child of children) child.kill();
  await system?.stop();
  if (work) rmSync(work, { recursive: true, force: true });
});

const idempotencyKey = () => ({ 'Idempotency-Key': randomUUID() });

/** The seller details EN 16931 asks for, as tests/e2e/einvoice.test.ts sets them. */
const SELLER = {
  business_name: 'Acme Design Studio',
  address: { line1: 'Hauptstraße 1', city: 'Köln', postal_code: '50667', country: 'DE' },
  tax_id: 'DE123456789',
  email: 'billing@acme.example',
  payment_account: { iban: 'DE89 3704 0044 0532 0130 00', bic: 'COBADEFFXXX', name: 'Acme Design Studio' },
};

/**
 * `npm start` as package.json's `start` script runs it (one process, every service, the in-process
 * event bus), on a database of its own, free ports and a temporary DATA_DIR; webhooks may go to 127.0.0.1.
 */
const npmStart = async () => {
  const database = await createTestDatabase('npm_start_client');
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'npm-start-'));
  const [program, ...args] = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start.split(' ');
  expect(program).toBe('node');
  const env = { ...ENV, DATABASE_URL: database.url, DATA_DIR: dataDir, PORT: String(port), SERVICE_PORT_BASE: String(await freePortBase()), LOG_LEVEL: 'warn', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' };
  const child = spawn(NODE, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 120_000;
  while (!output.includes('Press Ctrl-C to stop.')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not come up:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    key: (await mintApiKey(database.url, 'packed-client', 'all')).key,
    output: () => output,
    stop: async () => {
      child.kill('SIGTERM');
      const code = await exited;
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
  };
};

describe('clients generated from the served document by generators from npm', () => {
  it('@hey-api/openapi-ts and orval generate clients that type-check, with code using them', async () => {
    const orvalConfig = join(work, 'orval.config.mjs');
    writeFileSync(
      orvalConfig,
      `export default { invoicing: { input: { target: './openapi.json' }, output: { target: './orval/api.ts', client: 'fetch', mode: 'single' } } };\n`,
    );
    await Promise.all([
      run(NODE, [BIN.heyApi, '--input', 'openapi.json', '--output', 'hey'], { cwd: work, env: ENV }),
      run(NODE, [BIN.orval, '--config', orvalConfig], { cwd: work, env: ENV }),
    ]);
    // Code a user would write against each, so the types are checked for use, not only for compiling.
    writeFileSync(join(work, 'package.json'), '{ "type": "module", "private": true }\n');
    writeFileSync(
      join(work, 'use-hey.ts'),
      `import { createClient } from './hey/client/index.js';
import { createInvoice, retrieveInvoice } from './hey/sdk.gen.js';
import type { Problem, Invoice } from './hey/types.gen.js';
const client = createClient({ baseUrl: 'http://localhost:8080', auth: () => 'inv_live_x' });
export const draft = async (customer: string): Promise<Invoice | undefined> => {
  const created = await createInvoice({ client, headers: { 'Idempotency-Key': 'k' }, body: { customer, currency: 'EUR', items: [{ description: 'Consulting', unit_amount: 12000, quantity: 2 }, { price: 'price_0190f3e2c1b27a8e9d1f3c4b5a697887' }] } });
  return created.data?.data;
};
export const problemOf = async (id: string): Promise<Problem['code'] | undefined> => (await retrieveInvoice({ client, path: { id } })).error?.code;
`,
    );
    writeFileSync(
      join(work, 'use-orval.ts'),
      `import { createInvoice, type CreateInvoiceBody } from './orval/api.js';
const body: CreateInvoiceBody = { customer: 'cus_0190f3e2c1b27a8e9d1f3c4b5a697887', items: [{ description: 'Consulting', unit_amount: 12000 }] };
export const draft = async () => {
  const answer = await createInvoice(body, { headers: { 'Idempotency-Key': 'k' } });
  return answer.status === 201 ? answer.data.data.number : answer.data.code;
};
`,
    );
    writeFileSync(
      join(work, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', lib: ['es2022', 'dom', 'dom.iterable'], noEmit: true, skipLibCheck: true, types: [] },
        include: ['hey', 'orval', 'use-hey.ts', 'use-orval.ts'],
      }),
    );
    await run(NODE, [BIN.tsc, '-p', work], { cwd: work, env: ENV }).catch((error: { stdout?: string }) => Promise.reject(new Error(`tsc: ${error.stdout}`)));
    expect(readdirSync(join(work, 'hey'))).toEqual(expect.arrayContaining(['sdk.gen.ts', 'types.gen.ts']));
    expect(readFileSync(join(work, 'orval/api.ts'), 'utf8')).toContain('export const createInvoice');
  }, 120_000);

  it('the hey-api client goes through an invoice’s life: create, finalize, the PDF’s bytes, the public page, pay, and a 4xx as a Problem', async () => {
    const { createClient } = await import(join(work, 'hey/client/index.ts'));
    const sdk = await import(join(work, 'hey/sdk.gen.ts'));
    const client = createClient({ baseUrl: system.gatewayUrl, auth: () => key });

    // A seller with what EN 16931 asks of it, so the invoice has an e-invoice to download.
    const account = await sdk.updateAccount({ client, body: SELLER });
    expect(account.response.status, JSON.stringify(account.error)).toBe(200);
    const customer = await sdk.createCustomer({ client, body: { name: 'Generated GmbH', address: { line1: 'Ringstraße 7', postal_code: '10115', city: 'Berlin', country: 'DE' } } });
    expect(customer.response.status).toBe(201);
    const draft = await sdk.createInvoice({
      client,
      headers: idempotencyKey(),
      body: { customer: customer.data.data.id, currency: 'EUR', due_date: '2030-01-31', items: [{ description: 'Consulting', unit_amount: 12_000, quantity: 2, tax_rate: 19 }, { description: 'Travel', unit_amount: 4_500 }] },
    });
    expect(draft.response.status).toBe(201);
    const id: string = draft.data.data.id;
    const open = await sdk.finalizeInvoice({ client, path: { id }, headers: idempotencyKey() });
    expect(open.data.data).toMatchObject({ status: 'open', total: 33_060 });

    const pdf = await sdk.downloadInvoicePdf({ client, path: { id }, parseAs: 'arrayBuffer' });
    expect(pdf.response.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(pdf.data as ArrayBuffer).subarray(0, 5).toString('latin1')).toBe('%PDF-');
    const etag = pdf.response.headers.get('etag');
    const again = await sdk.downloadInvoicePdf({ client, path: { id }, headers: { 'If-None-Match': etag } });
    expect(again.response.status).toBe(304);

    // The e-invoice is XML text: asked for as text, it is the document itself.
    expect(open.data.data.einvoice.en16931, JSON.stringify(open.data.data.einvoice)).toMatchObject({ ready: true });
    const xml = await sdk.downloadInvoiceEinvoice({ client, path: { id }, query: { syntax: 'ubl' }, parseAs: 'text' });
    expect(xml.response.status, JSON.stringify(xml.error)).toBe(200);
    expect(xml.response.headers.get('content-type')).toMatch(/^application\/xml/);
    expect(typeof xml.data).toBe('string');
    expect(xml.data).toMatch(/^<\?xml /);
    expect(xml.data).toContain(`<cbc:ID>${open.data.data.number}</cbc:ID>`);

    const page = await sdk.viewPublicInvoice({ client, path: { token: open.data.data.public_url_token } });
    expect(typeof page.data).toBe('string');
    expect(page.data).toContain(open.data.data.number);

    const paid = await sdk.payInvoice({ client, path: { id }, headers: idempotencyKey(), body: { payment_reference: 'SEPA 4711' } });
    expect(paid.data.data.status).toBe('paid');

    const missing = await sdk.retrieveInvoice({ client, path: { id: 'in_0190f3e2c1b27a8e9d1f3c4b5a697887' } });
    expect(missing.response.status).toBe(404);
    expect(missing.error).toMatchObject({ code: 'not_found', status: 404, request_id: missing.response.headers.get('x-request-id') });
    const refused = await sdk.voidInvoice({ client, path: { id }, headers: idempotencyKey() });
    expect(refused.response.status).toBe(409);
    expect(refused.error).toMatchObject({ code: 'invalid_state', type: 'https://docs.invoicing.dev/errors#invalid_state' });
  }, 60_000);
});

describe('the packed @invoicing/client', () => {
  it('installs from its tarball into an empty folder, type-checks the example against its declarations and runs it against npm start on Node 20 and 24', async () => {
    const { stdout: nodeVersion } = await run(SYSTEM_NODE, ['--version']);
    expect(nodeVersion, `${SYSTEM_NODE} is the Node 20 the example must run on`).toMatch(/^v20\./);
    await run(NODE, [join(ROOT, 'packages/client/scripts/build.ts')], { env: ENV });
    const packs = join(work, 'packs');
    mkdirSync(packs);
    const { stdout: packed } = await run(BIN.npm, ['pack', join(ROOT, 'packages/client/dist'), '--pack-destination', packs, '--json'], { env: ENV });
    const tarball = join(packs, (JSON.parse(packed) as { filename: string }[])[0]!.filename);
    const consumer = join(work, 'consumer');
    mkdirSync(consumer);
    writeFileSync(join(consumer, 'package.json'), '{ "name": "consumer", "private": true, "type": "module" }\n');
    // Under 1 s on an idle machine; allow minutes for a slow registry, and say what npm said if it fails.
    const installStarted = Date.now();
    await run(BIN.npm, ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=http', tarball], { cwd: consumer, env: ENV, timeout: 240_000 }).catch(
      (error: { stdout?: string; stderr?: string; message: string; signal?: string }) =>
        Promise.reject(new Error(`npm install (${error.signal ?? 'exited'} after ${Date.now() - installStarted} ms): ${error.message}\n${error.stdout}\n${error.stderr}`)),
    );
    const example = readFileSync(join(ROOT, 'packages/client/examples/first-invoice.mjs'), 'utf8');
    writeFileSync(join(consumer, 'first-invoice.mjs'), example);
    const installed = readdirSync(join(consumer, 'node_modules/@invoicing/client'));
    expect(installed).toEqual(expect.arrayContaining(['index.js', 'index.d.ts', 'README.md', 'package.json']));
    expect(installed.some((file) => file.endsWith('.ts') && !file.endsWith('.d.ts'))).toBe(false);

    await run(
      NODE,
      [BIN.tsc, '--noEmit', '--allowJs', '--checkJs', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--lib', 'es2022,dom', '--skipLibCheck', '--typeRoots', join(ROOT, 'node_modules/@types'), '--types', 'node', 'first-invoice.mjs'],
      { cwd: consumer, env: ENV },
    ).catch((error: { stdout?: string }) => Promise.reject(new Error(`tsc: ${error.stdout}`)));

    const platform = await npmStart();
    const ranOn: string[] = [];
    for (const node of [SYSTEM_NODE, NODE]) {
      const { stdout } = await run(node, ['first-invoice.mjs'], { cwd: consumer, env: { ...ENV, INVOICING_URL: platform.url, INVOICING_API_KEY: platform.key }, timeout: 90_000 }).catch(
        (error: { stdout?: string; stderr?: string; message: string }) =>
          Promise.reject(new Error(`${node} first-invoice.mjs: ${error.message}\n${error.stdout}\n${error.stderr}\nnpm start said:\n${platform.output()}`)),
      );
      const result = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
      ranOn.push(String(result.node).split('.')[0]!);
      expect(result, node).toMatchObject({
        total: 33_915,
        replayed: true,
        pdf: { magic: '%PDF-' },
        status: 'paid',
        voidRefusedWith: '409 invalid_state',
        webhook: ['invoice.paid for this invoice'],
      });
      expect((result.numbers as string[]).length).toBeGreaterThanOrEqual(1);
      expect((result.pdf as { bytes: number }).bytes).toBeGreaterThan(1_000);
    }
    // The example itself reports the Node.js that ran it: one run on each.
    expect(ranOn).toEqual(['v20', 'v24']);
    expect(await platform.stop()).toBe(0);
  }, 420_000);
});

/** A walk-through of the README: the `sh` blocks between its markers, with the answers shown after each. */
const readmeSteps = (name: string) => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.split(`<!-- ${name}: begin -->`)[1]?.split(`<!-- ${name}: end -->`)[0];
  if (!section) throw new Error(`README.md has no ${name} markers`);
  const blocks = [...section.matchAll(/```(sh|json|text)\n([\s\S]*?)```/g)].map(([, kind, body]) => ({ kind: kind!, body: body! }));
  const steps: { command: string; shown: string[] }[] = [];
  for (const block of blocks) {
    if (block.kind === 'sh') steps.push({ command: block.body, shown: [] });
    else steps.at(-1)?.shown.push(block.body);
  }
  return steps;
};

/** Every value shown in a README answer is in the real answer, except those that differ per run (IDs, times, secrets, amounts of bytes). */
const shownMatches = (shown: unknown, actual: unknown, path = ''): string[] => {
  if (typeof shown === 'string' && (/\d/.test(shown) || shown.includes('…'))) return typeof actual === 'string' ? [] : [`${path}: ${JSON.stringify(actual)} is no string`];
  if (Array.isArray(shown)) return Array.isArray(actual) ? shown.flatMap((item, index) => shownMatches(item, actual[index], `${path}[${index}]`)) : [`${path}: not a list`];
  if (shown !== null && typeof shown === 'object') {
    if (actual === null || typeof actual !== 'object') return [`${path}: not an object`];
    return Object.entries(shown).flatMap(([name, value]) => (name in actual ? shownMatches(value, (actual as Record<string, unknown>)[name], `${path}.${name}`) : [`${path}.${name}: missing`]));
  }
  return shown === actual ? [] : [`${path}: shown ${JSON.stringify(shown)}, got ${JSON.stringify(actual)}`];
};

/** Runs the steps in one shell, as a reader pastes them, and compares each answer with the one the README shows. */
const runAsShown = async (commands: { command: string; shown: string[] }[], local: (text: string) => string) => {
  const marker = `@@step-${randomUUID()}@@`;
  const script = ['set -euo pipefail', ...commands.map((step) => `${local(step.command)}\necho '${marker}'; echo '${marker}' >&2`)].join('\n');
  const cwd = mkdtempSync(join(tmpdir(), 'quick-start-'));
  const { stdout, stderr } = await run('bash', ['-c', script], {
    cwd,
    env: { ...ENV, DATABASE_URL: system.databaseUrl },
    maxBuffer: 16 * 1024 * 1024,
  }).catch((error: { stdout?: string; stderr?: string; message: string }) => Promise.reject(new Error(`${error.message}\n${error.stdout}\n${error.stderr}`)));
  rmSync(cwd, { recursive: true, force: true });
  const outputs = stdout.split(`${marker}\n`).map((out, index) => `${out}${stderr.split(`${marker}\n`)[index] ?? ''}`);

  for (const [index, step] of commands.entries()) {
    for (const shown of step.shown) {
      const output = outputs[index]!.trim();
      if (shown.trim().startsWith('{')) {
        const lastJson = output.split('\n').filter((line) => line.startsWith('{')).at(-1) ?? output.slice(output.indexOf('{'));
        expect(shownMatches(JSON.parse(shown), JSON.parse(lastJson)), `${step.command}\n→ ${output}`).toEqual([]);
      } else {
        const pattern = new RegExp(`^${shown.trim().split('…').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 'm');
        expect(output, step.command).toMatch(pattern);
      }
    }
  }
};

describe('the README quick start', () => {
  it('runs as written: a key, a webhook receiver, a customer, a draft with two lines, finalize, the PDF, the public link, pay and the webhook it fires', async () => {
    const steps = readmeSteps('quick start');
    expect(steps.length).toBeGreaterThanOrEqual(8);
    const port = await freePort();
    // The gateway and the receiver of this test instead of the README's ports; the operator command
    // of this repository, run from the temporary folder the files of the quick start land in.
    const local = (text: string) =>
      text.replaceAll('http://localhost:8080', system.gatewayUrl).replaceAll('9000', String(port)).replaceAll('npm run --silent admin', `npm --prefix ${JSON.stringify(ROOT)} run --silent admin`);
    // The receiver runs "in another shell", as the README says.
    const [receiverStep, ...commands] = steps;
    expect(receiverStep!.command).toContain('createServer');
    const receiver = spawn('bash', ['-c', local(receiverStep!.command)], { cwd: ROOT, env: { ...ENV, PATH: `${join(ROOT, 'node_modules/.bin')}:${ENV.PATH}` } });
    children.push(receiver);
    let received = '';
    receiver.stdout!.on('data', (chunk: Buffer) => (received += chunk.toString('utf8')));
    for (let tries = 0; !(await fetch(`http://localhost:${port}/`, { method: 'POST', body: '' }).then(() => true, () => false)); tries++) {
      if (tries > 100) throw new Error('the README receiver did not start');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    received = '';

    await runAsShown(commands, local);
    // The README names the deliveries the receiver prints: exactly those arrive, one each.
    const section = readFileSync(join(ROOT, 'README.md'), 'utf8').split('<!-- quick start: begin -->')[1]!;
    const named = [...(/one signed delivery per event \(([^)]*)\)/.exec(section)?.[1] ?? '').matchAll(/`([a-z_.]+)`/g)].map(([, type]) => type!);
    expect(named).toContain('invoice.paid');
    const deliveredTypes = () => received.split('\n').filter((line) => line.startsWith('{')).map((line) => (JSON.parse(line) as { type: string }).type);
    const deadline = Date.now() + 20_000;
    while (deliveredTypes().length < named.length && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect([...deliveredTypes()].sort(), received).toEqual([...named].sort());
  }, 120_000);

  it('the test mode walk-through runs as written: a test key, metadata, a test clock whose advance makes an invoice overdue, its deletion', async () => {
    const steps = readmeSteps('test mode');
    expect(steps.length).toBeGreaterThanOrEqual(4);
    const local = (text: string) => text.replaceAll('http://localhost:8080', system.gatewayUrl).replaceAll('npm run --silent admin', `npm --prefix ${JSON.stringify(ROOT)} run --silent admin`);
    await runAsShown(steps, local);
  }, 120_000);
});
