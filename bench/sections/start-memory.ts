import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repositoryRoot } from '@invoicing/service-kit';
import { freePort } from '@invoicing/testing/free-port';
import { describeTakenPort } from '../../deploy/local/port-check.ts';
import { mark, megabytes } from '../format.ts';
import { median } from '../process-meter.ts';
import { processTree, readCommand, readMemory } from '../proc.ts';
import type { BenchSection } from '../section.ts';

/** The target: `npm start` idle, every process together, before the first PDF. */
const TARGETS = { maxIdleBytes: 600 * 2 ** 20 };
const READY_TIMEOUT_MS = 180_000;
const READINGS = 3;
const SERVICE_PORTS = 4;

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A SERVICE_PORT_BASE whose next four ports are free now. */
const freePortBase = async (): Promise<number> => {
  for (let attempt = 0; attempt < 20; attempt++) {
    const base = await freePort();
    if (base + SERVICE_PORTS > 65_535) continue;
    const ports = Array.from({ length: SERVICE_PORTS }, (_, index) => ({ host: '127.0.0.1', port: base + 1 + index, setting: 'SERVICE_PORT_BASE' }));
    if (!(await describeTakenPort(ports))) return base;
  }
  throw new Error('found no four free ports in a row for SERVICE_PORT_BASE');
};

interface Reading {
  processes: { pid: number; command: string; rssBytes: number; pssBytes: number }[];
  rssBytes: number;
  pssBytes: number;
}

const readTree = (rootPid: number): Reading => {
  const processes = processTree(rootPid).flatMap(({ pid }) => {
    const memory = readMemory(pid);
    return memory ? [{ pid, command: readCommand(pid, 70, repositoryRoot()), ...memory }] : [];
  });
  return {
    processes,
    rssBytes: processes.reduce((sum, process) => sum + process.rssBytes, 0),
    pssBytes: processes.reduce((sum, process) => sum + process.pssBytes, 0),
  };
};

/** The last lines `npm start` wrote that are not JSON log lines, for saying why it stopped. */
const lastWords = (lines: readonly string[]) =>
  lines.filter((line) => !line.startsWith('{')).slice(-3).map((line) => (line.length > 300 ? `${line.slice(0, 299)}…` : line)).join(' | ') || '(nothing but log lines)';

interface Started {
  pid: number;
  readySeconds: number;
  stop: () => Promise<void>;
}

/** Runs `script` in its own process group and waits for the gateway's /readyz; rejects if it exits first. */
const startAndWait = async (script: string, env: NodeJS.ProcessEnv, port: number): Promise<Started> => {
  const child = spawn('sh', ['-c', script], { cwd: repositoryRoot(), env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const output: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    stream.on('data', (chunk: Buffer) => {
      output.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      output.splice(0, Math.max(0, output.length - 50));
    });
  }
  let gone = false;
  child.once('exit', () => (gone = true));
  const stop = async () => {
    // Every process of the tree, PostgreSQL's included: all must be gone before DATA_DIR is removed.
    const started = processTree(child.pid!).map(({ pid }) => pid);
    const signal = (pid: number, name: NodeJS.Signals) => {
      try {
        process.kill(pid, name);
      } catch {
        // already gone
      }
    };
    // The whole group of the shell, so start.ts gets the SIGTERM whether or not the shell exec'd it.
    signal(-child.pid!, 'SIGTERM');
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline && started.some((pid) => processTree(pid).length > 0)) await delay(250);
    for (const pid of started) if (processTree(pid).length > 0) signal(pid, 'SIGKILL');
    // The database keeper stops PostgreSQL once start.ts is gone.
    await delay(1_000);
  };
  const began = performance.now();
  const deadline = Date.now() + READY_TIMEOUT_MS;
  try {
    for (;;) {
      if (gone) throw new Error(`it exited before it was ready: ${lastWords(output)}`);
      if (Date.now() > deadline) throw new Error(`it was not ready within ${READY_TIMEOUT_MS / 1000} s: ${lastWords(output)}`);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2_000) }).then((response) => response.ok, () => false);
      if (ready) return { pid: child.pid!, readySeconds: (performance.now() - began) / 1000, stop };
      await delay(250);
    }
  } catch (error) {
    await stop();
    throw error;
  }
};

/**
 * `npm start` as a person runs it (its script from package.json, with the embedded PostgreSQL and
 * the in-process event bus), on a temporary DATA_DIR and free ports: once /readyz answers and it
 * has settled, the RSS and PSS of its whole process tree. No request is made, so no PDF either.
 */
export const startMemory: BenchSection = {
  name: 'start',
  services: [],
  standalone: true,
  run: async (context) => {
    const script = (JSON.parse(readFileSync(join(repositoryRoot(), 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
    const dataDir = mkdtempSync(join(tmpdir(), 'bench-start-'));
    const port = await freePort();
    const { DATABASE_URL: _database, NATS_URL: _nats, ...inherited } = process.env;
    const env = {
      ...inherited,
      PATH: `${join(repositoryRoot(), 'node_modules', '.bin')}:${process.env.PATH ?? ''}`,
      DATA_DIR: dataDir,
      PORT: String(port),
      SERVICE_PORT_BASE: String(await freePortBase()),
      EMBEDDED_POSTGRES_PORT: String(await freePort()),
    };
    // A fresh DATA_DIR is the first start a person makes; should it fail, the second start (PostgreSQL
    // initialised by then) is measured and the failure reported.
    const attempts: string[] = [];
    let started: Started | undefined;
    try {
      for (let attempt = 1; attempt <= 2 && !started; attempt++) {
        context.progress(`${script} on DATA_DIR ${dataDir}, port ${port}${attempt > 1 ? ', again' : ''}`);
        try {
          started = await startAndWait(script, env, port);
        } catch (error) {
          attempts.push(error instanceof Error ? error.message : String(error));
          context.progress(`npm start failed: ${attempts.at(-1)}`);
        }
      }
      if (!started) throw new Error(`npm start did not start twice: ${attempts.join('; ')}`);
      const { pid, readySeconds } = started;
      context.progress(`ready after ${readySeconds.toFixed(1)} s; settling ${context.settings.BENCH_IDLE_SETTLE_S} s`);
      await delay(context.settings.BENCH_IDLE_SETTLE_S * 1000);
      const readings: Reading[] = [];
      for (let i = 0; i < READINGS; i++) {
        if (i > 0) await delay(1_000);
        readings.push(readTree(pid));
      }
      const pss = median(readings.map((reading) => reading.pssBytes));
      const rss = median(readings.map((reading) => reading.rssBytes));
      const last = readings.at(-1)!;
      return {
        serverErrors: 0,
        targets: [
          { target: 'npm start idle before the first PDF, all processes together, PSS sum <= 600 MB', figure: megabytes(pss), baseline: '600 MB', ratio: `${(pss / TARGETS.maxIdleBytes).toFixed(2)}x of it`, pass: pss <= TARGETS.maxIdleBytes },
          { target: 'the same, RSS sum (counts shared pages once per process) <= 600 MB', figure: megabytes(rss), baseline: '600 MB', ratio: `${(rss / TARGETS.maxIdleBytes).toFixed(2)}x of it`, pass: rss <= TARGETS.maxIdleBytes },
        ],
        tables: [
          {
            title: `npm start idle (${script}), ${context.settings.BENCH_IDLE_SETTLE_S} s after /readyz, before any request`,
            columns: ['pid', 'command', 'RSS', 'PSS'],
            rows: [
              ...last.processes.map(({ pid, command, rssBytes, pssBytes }) => [String(pid), command, megabytes(rssBytes), megabytes(pssBytes)]),
              ['', `all ${last.processes.length} processes (median of ${READINGS} readings 1 s apart)`, `${megabytes(rss)} ${mark(rss <= TARGETS.maxIdleBytes)}`, `${megabytes(pss)} ${mark(pss <= TARGETS.maxIdleBytes)}`],
            ],
            notes: [
              `Target: at most 600 MB for all processes together. PSS divides each shared page among the processes mapping it, so its sum is what the tree takes; the RSS sum counts PostgreSQL's shared buffers once per backend.`,
              ...attempts.map((failure) => `The first start on the fresh DATA_DIR failed, so a second start on it was measured: ${failure}`),
              `The process tree of the started command (with DATABASE_URL and NATS_URL unset: the embedded PostgreSQL and the in-process bus), from /proc; ready ${readySeconds.toFixed(1)} s after the start, on a DATA_DIR of its own, fresh for the first start.`,
            ],
          },
        ],
      };
    } finally {
      await started?.stop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  },
};
