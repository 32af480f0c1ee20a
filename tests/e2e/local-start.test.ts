import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createHttpServer } from 'node:http';
import { createTestDatabase, freePort, freePortBase, type TestDatabase } from '@invoicing/testing';
import { simpleParser } from 'mailparser';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { measureProcessTreeMemory } from '../../deploy/local/measure-memory.ts';
import { mintApiKey } from '../../deploy/local/operator.ts';
import { NODE } from '../../deploy/local/service-process.ts';

interface Runner {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  gatewayUrl: string;
}

let database: TestDatabase;
let runner: Runner | undefined;
/** The runner's DATA_DIR (its database comes from DATABASE_URL; its e-mails are written here). */
let dataDir: string;

const startRunner = async (): Promise<Runner> => {
  const port = await freePort();
  const env = { PATH: process.env.PATH ?? '', DATABASE_URL: database.url, DATA_DIR: dataDir, PORT: String(port), SERVICE_PORT_BASE: String(await freePortBase()), LOG_LEVEL: 'warn', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' };
  const child = spawn(NODE, ['deploy/local/start.ts'], { cwd: new URL('../..', import.meta.url), env, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const started: Runner = { child, output: () => text, exited, gatewayUrl: `http://127.0.0.1:${port}` };
  runner = started;
  const deadline = Date.now() + 90_000;
  while (!text.includes('Press Ctrl-C to stop.')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`npm start did not come up:\n${text}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return started;
};

beforeAll(async () => {
  database = await createTestDatabase('npm_start');
  dataDir = mkdtempSync(join(tmpdir(), 'npm-start-'));
});

afterEach(async () => {
  if (runner && runner.child.exitCode === null) {
    runner.child.kill('SIGTERM');
    await runner.exited;
  }
  runner = undefined;
});

afterAll(async () => {
  await database?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

interface Delivery {
  headers: Record<string, string>;
  body: string;
}

/** A loopback webhook receiver that records what arrives. */
const startReceiver = async () => {
  const deliveries: Delivery[] = [];
  const server = createHttpServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      deliveries.push({ headers: request.headers as Record<string, string>, body });
      response.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/hooks`, deliveries, close: () => new Promise((resolve) => server.close(resolve)) };
};

/** The Chromium processes in a process's tree (the browser documents prints with, and its helpers). */
const browsersUnder = (pid: number): number[] =>
  measureProcessTreeMemory(pid)
    .processes.filter(({ command }) => /chrom/i.test(command))
    .map((process) => process.pid);

/** Alive, not a zombie: the browser's helpers exit with it and wait a moment to be reaped by init. */
const isRunning = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !['Z', 'X'].includes(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3));
  } catch {
    return false;
  }
};

const waitFor = async <T>(find: () => T | undefined, timeoutMs = 30_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error('did not happen in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

describe('npm start', () => {
  it('runs every service in one process without NATS: a paid invoice gets its PDF and a signed webhook, its e-mail is an .eml file under the data folder; Ctrl-C stops it cleanly', async () => {
    const receiver = await startReceiver();
    try {
      const { gatewayUrl, child, exited, output } = await startRunner();
      expect(output()).toMatch(/events: in-process/);
      for (const service of ['catalog', 'billing', 'documents', 'notifications', 'gateway']) expect(output()).toMatch(new RegExp(`^ {2}${service} +http://`, 'm'));
      expect(output()).toContain('npm run --silent admin -- keys create --workspace demo --scopes all');
      // Idle, before any PDF: no browser (it is launched by the first one).
      expect(browsersUnder(child.pid!)).toEqual([]);

      const { key } = await mintApiKey(database.url, 'demo', 'all');
      const call = async (method: string, path: string, body?: unknown) => {
        const response = await fetch(`${gatewayUrl}/api/v1${path}`, {
          method,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: response.status, json: (await response.json()) as { data: Record<string, unknown> } };
      };
      const endpoint = await call('POST', '/webhook_endpoints', { url: receiver.url, enabled_events: ['invoice.paid'] });
      expect(endpoint.status).toBe(201);
      const mailDir = join(dataDir, 'mail');
      expect(output()).toContain(`  E-mails: SMTP_URL is unset, so each is written as an .eml file under ${mailDir}\n`);
      const customer = await call('POST', '/customers', { name: 'Started GmbH', email: 'accounts@started.example' });
      const invoice = await call('POST', '/invoices', { customer: customer.json.data.id, items: [{ description: 'Setup', unit_amount: 5000 }] });
      const id = String(invoice.json.data.id);
      expect((await call('POST', `/invoices/${id}/finalize`)).json.data.number).toMatch(/^INV\/\d{4}\/0001$/);
      // Without SMTP_URL the e-mail is written where the banner says, as it would have been sent.
      const queued = await call('POST', `/invoices/${id}/send`, {});
      expect(queued.status).toBe(202);
      const eml = join(mailDir, `${String(queued.json.data.id)}.eml`);
      await waitFor(() => (existsSync(eml) ? true : undefined), 60_000);
      const mail = await simpleParser(readFileSync(eml));
      expect(mail.subject).toMatch(/^Invoice INV\/\d{4}\/0001 from /);
      expect(mail.to).toMatchObject({ value: [{ address: 'accounts@started.example' }] });
      expect(mail.attachments.map((each) => each.contentType)).toEqual(['application/pdf']);
      expect((await call('POST', `/invoices/${id}/pay`)).json.data.status).toBe('paid');

      const delivery = await waitFor(() => receiver.deliveries.find((d) => d.body.includes('"invoice.paid"')));
      const event = new Webhook(String(endpoint.json.data.secret)).verify(delivery.body, delivery.headers) as { type: string; data: { object: { id: string } } };
      expect(event.type).toBe('invoice.paid');
      expect(event.data.object.id).toBe(id);
      const pdf = await fetch(`${gatewayUrl}/api/v1/invoices/${id}/pdf`, { headers: { authorization: `Bearer ${key}` } });
      expect(pdf.status).toBe(200);
      expect(pdf.headers.get('content-type')).toBe('application/pdf');
      const browsers = browsersUnder(child.pid!);
      expect(browsers.length).toBeGreaterThan(0);

      child.kill('SIGINT');
      expect(await exited).toBe(0);
      expect(output()).toMatch(/SIGINT: stopping the services, then the database\.\nStopped\.\n$/);
      await expect(fetch(`${gatewayUrl}/healthz`)).rejects.toThrow();
      expect(browsers.filter(isRunning)).toEqual([]);
    } finally {
      await receiver.close();
    }
  }, 120_000);

  it('refuses an invalid setting with a readable message', async () => {
    const child = spawn(NODE, ['deploy/local/start.ts'], {
      cwd: new URL('../..', import.meta.url),
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: database.url, PORT: 'eighty' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code).toBe(1);
    expect(text).toMatch(/npm start: Invalid settings:\n {2}PORT: /);
  });
});
