import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { createTestDatabase, freePort, type TestDatabase } from '@invoicing/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { mintApiKey } from '../../deploy/local/operator.ts';
import { NODE } from '../../deploy/local/service-process.ts';

const UPSTREAM_PORTS = 4;

const isFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/** A base for SERVICE_PORT_BASE whose next ports are free, since `npm start` puts upstreams right after it. */
const freePortBase = async (): Promise<number> => {
  for (let attempt = 0; attempt < 20; attempt++) {
    const base = (await freePort()) - 1;
    const ports = Array.from({ length: UPSTREAM_PORTS }, (_, index) => base + 1 + index);
    if ((await Promise.all(ports.map(isFree))).every(Boolean)) return base;
  }
  throw new Error('no run of free ports');
};

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

interface Runner {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
  gatewayUrl: string;
}

let database: TestDatabase;
let runner: Runner | undefined;

const startRunner = async (): Promise<Runner> => {
  const port = await freePort();
  const env = { PATH: process.env.PATH ?? '', DATABASE_URL: database.url, PORT: String(port), SERVICE_PORT_BASE: String(await freePortBase()), LOG_LEVEL: 'warn' };
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

/** The pid of each service, from the lines `  <name>  <url>  (pid <n>)` that npm start prints. */
const pidsOf = (output: string): Map<string, number> =>
  new Map([...output.matchAll(/^ {2}(\w+) +http:\/\/\S+ +\(pid (\d+)\)$/gm)].map((match) => [match[1]!, Number(match[2])]));

beforeAll(async () => {
  database = await createTestDatabase('npm_start');
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
});

describe('npm start', () => {
  it('serves the API through the gateway, and on Ctrl-C stops every service before exiting', async () => {
    const { gatewayUrl, child, exited, output } = await startRunner();
    const pids = pidsOf(output());
    expect([...pids.keys()]).toEqual(expect.arrayContaining(['catalog', 'gateway']));
    expect(output()).toContain('npm run --silent admin -- keys create --workspace demo --scopes all');

    const { key } = await mintApiKey(database.url, 'demo', 'all');
    const created = await fetch(`${gatewayUrl}/api/v1/customers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Started GmbH' }),
    });
    expect(created.status).toBe(201);

    child.kill('SIGINT');
    expect(await exited).toBe(0);
    expect(output()).toMatch(/SIGINT: stopping the services, then the database\.\nStopped\.\n$/);
    for (const pid of pids.values()) expect(isAlive(pid)).toBe(false);
  });

  it('stops everything, saying why, when a service dies', async () => {
    const { exited, output } = await startRunner();
    const pids = pidsOf(output());

    process.kill(pids.get('catalog')!, 'SIGKILL');
    expect(await exited).toBe(1);
    expect(output()).toContain('catalog exited unexpectedly with signal SIGKILL; stopping everything.');
    for (const pid of pids.values()) expect(isAlive(pid)).toBe(false);
  });
});
