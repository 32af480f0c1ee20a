// What a person must fix fails fast, in one line naming the setting: a service or `npm start` on a
// port another process holds, and an embedded PostgreSQL whose port or data directory is taken.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { createServer as createHttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, freePort, freePortBase, type TestDatabase } from '@invoicing/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateInternalToken } from '../../deploy/local/platform.ts';
import { NODE, PortTakenError, ServiceProcess } from '../../deploy/local/service-process.ts';

const UPSTREAM_PORTS = 4;

/** Something else listening on a port: a plain TCP listener. */
const occupy = async (port = 0): Promise<Server & { port: number }> => {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return Object.assign(server, { port: (server.address() as { port: number }).port });
};

interface Run {
  output: () => string;
  exited: Promise<{ code: number | null; ms: number }>;
  kill: () => Promise<void>;
}

const npmStart = (env: Record<string, string>): Run => {
  const started = Date.now();
  const child = spawn(NODE, ['deploy/local/start.ts'], {
    cwd: new URL('../..', import.meta.url),
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (text += chunk.toString()));
  const exited = new Promise<{ code: number | null; ms: number }>((resolve) => child.once('exit', (code) => resolve({ code, ms: Date.now() - started })));
  return {
    output: () => text,
    exited,
    kill: async () => {
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
};

let database: TestDatabase;
const cleanups: (() => Promise<void> | void)[] = [];

beforeAll(async () => {
  database = await createTestDatabase('busy_ports');
});

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await database?.drop();
});

describe('a busy port', () => {
  it('ends a service started on it at once, non-zero, with one line naming the port and PORT', async () => {
    const holder = await occupy();
    cleanups.push(() => new Promise<void>((resolve) => holder.close(() => resolve())));
    const started = Date.now();
    const catalog = new ServiceProcess('catalog', holder.port, {
      PATH: process.env.PATH ?? '',
      PORT: String(holder.port),
      DATABASE_URL: database.url,
      INTERNAL_TOKEN: generateInternalToken(),
      LOG_LEVEL: 'warn',
    });
    const exit = await catalog.exited;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(exit.code).toBe(1);
    expect(catalog.tail()).toContain(`catalog: port ${holder.port} is already in use (set PORT to use another)`);
    // A launcher that chose the port learns it may choose another.
    await expect(catalog.waitUntilReady(10_000)).rejects.toBeInstanceOf(PortTakenError);
  });

  it('is not taken for ready when another program answers there with a 200 (a test’s webhook receiver, say)', async () => {
    const receiver = createHttpServer((_request, response) => response.writeHead(200).end());
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
    const { port } = receiver.address() as { port: number };
    const ours = new ServiceProcess('catalog', port, { PATH: process.env.PATH ?? '', PORT: String(port), DATABASE_URL: database.url, INTERNAL_TOKEN: generateInternalToken(), LOG_LEVEL: 'warn' });
    cleanups.push(async () => void (await ours.stop()));
    await expect(ours.waitUntilReady(10_000)).rejects.toBeInstanceOf(PortTakenError);
  });

  it("is not taken for ready when another platform's service answers there: its readiness refuses our token", async () => {
    const port = await freePort();
    const settings = { PATH: process.env.PATH ?? '', PORT: String(port), DATABASE_URL: database.url, LOG_LEVEL: 'warn' };
    const theirs = new ServiceProcess('catalog', port, { ...settings, INTERNAL_TOKEN: generateInternalToken() });
    cleanups.push(async () => void (await theirs.stop()));
    await theirs.waitUntilReady(60_000);
    const ours = new ServiceProcess('catalog', port, { ...settings, INTERNAL_TOKEN: generateInternalToken() });
    cleanups.push(async () => void (await ours.stop()));
    const started = Date.now();
    await expect(ours.waitUntilReady(60_000)).rejects.toThrow(PortTakenError);
    expect(Date.now() - started).toBeLessThan(10_000);
    // The other platform's own launcher, with its token, still finds it ready.
    await expect(theirs.waitUntilReady(5_000)).resolves.toBeUndefined();
  }, 90_000);

  it('ends a second npm start within 10 s, naming the taken port and the setting that moves it', async () => {
    const port = await freePort();
    const base = await freePortBase();
    const env = { DATABASE_URL: database.url, PORT: String(port), SERVICE_PORT_BASE: String(base) };
    const first = npmStart(env);
    cleanups.push(first.kill);
    const deadline = Date.now() + 90_000;
    while (!first.output().includes('Press Ctrl-C to stop.')) {
      if (Date.now() > deadline) throw new Error(`the first npm start did not come up:\n${first.output()}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    const second = npmStart(env);
    const { code, ms } = await second.exited;
    expect(code).toBe(1);
    expect(ms).toBeLessThan(10_000);
    expect(second.output()).toContain(`npm start: port ${port} is already in use (set PORT to use another)`);

    // The gateway moved, the services not: the message names the services' setting.
    const third = npmStart({ ...env, PORT: String(await freePort()) });
    const thirdExit = await third.exited;
    expect(thirdExit.code).toBe(1);
    expect(thirdExit.ms).toBeLessThan(10_000);
    const servicePorts = Array.from({ length: UPSTREAM_PORTS }, (_, index) => base + 1 + index).join('|');
    expect(third.output()).toMatch(new RegExp(`npm start: port (${servicePorts}) is already in use \\(set SERVICE_PORT_BASE to use another\\)`));
    expect(first.output()).not.toContain('Stopped.');
  }, 120_000);
});

describe('the embedded PostgreSQL of npm start', () => {
  const freshDataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'npm-start-data-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    return dir;
  };

  it('names EMBEDDED_POSTGRES_PORT within 10 s when something else holds that port', async () => {
    const holder = await occupy();
    cleanups.push(() => new Promise<void>((resolve) => holder.close(() => resolve())));
    const run = npmStart({ DATA_DIR: freshDataDir(), EMBEDDED_POSTGRES_PORT: String(holder.port), PORT: String(await freePort()), SERVICE_PORT_BASE: String(await freePortBase()) });
    const { code, ms } = await run.exited;
    expect(code).toBe(1);
    expect(ms).toBeLessThan(10_000);
    expect(run.output()).toMatch(new RegExp(`npm start: port ${holder.port} is already in use, and not by the embedded PostgreSQL under .+ \\(set EMBEDDED_POSTGRES_PORT to use another\\)`));
  });

  it('names DATA_DIR within 10 s when another running PostgreSQL holds that data directory', async () => {
    const dataDir = freshDataDir();
    mkdirSync(join(dataDir, 'postgres'));
    // What PostgreSQL writes while it runs from a directory: its pid (a live one: ours) and its port.
    const otherPort = await freePort();
    writeFileSync(join(dataDir, 'postgres', 'postmaster.pid'), `${process.pid}\n${join(dataDir, 'postgres')}\n0\n${otherPort}\n/tmp\n127.0.0.1\n0\nready\n`);
    const run = npmStart({ DATA_DIR: dataDir, EMBEDDED_POSTGRES_PORT: String(await freePort()), PORT: String(await freePort()), SERVICE_PORT_BASE: String(await freePortBase()) });
    const { code, ms } = await run.exited;
    expect(code).toBe(1);
    expect(ms).toBeLessThan(10_000);
    expect(run.output()).toContain(`npm start: DATA_DIR is in use: another PostgreSQL (pid ${process.pid}, port ${otherPort})`);
    expect(run.output()).toContain(`set EMBEDDED_POSTGRES_PORT=${otherPort} to share it, or DATA_DIR to use another directory`);
  });
});
