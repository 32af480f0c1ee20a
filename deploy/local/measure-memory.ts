// Memory of a process tree, read from /proc (Linux): `measureProcessTreeMemory(pid)` for code that
// wants the figures (the benchmark), and, run as a script, the idle memory of `npm start`:
//   node deploy/local/measure-memory.ts     (or: npm run measure:memory)
// starts `npm start` on a temporary DATA_DIR and free ports, waits until the gateway's /readyz
// answers 200 and then MEASURE_SETTLE_S seconds (default 10), prints one row per process, and stops it.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, freePortBase } from '@invoicing/testing/free-port';

export interface ProcessMemory {
  pid: number;
  /** Parent pid, so a reader can tell whose child a process is. */
  ppid: number;
  /** Its command line, cut to 120 characters. */
  command: string;
  /** Resident set: pages shared with other processes (libraries, PostgreSQL's shared buffers) count in each. */
  rssBytes: number;
  /** Proportional set: each shared page split among the processes that map it, so these add up honestly. */
  pssBytes: number;
}

export interface ProcessTreeMemory {
  processes: ProcessMemory[];
  rssBytes: number;
  pssBytes: number;
}

const parentOf = (pid: number): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name in parentheses may hold spaces; the fields after its closing one are fixed.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
};

/** Rss and Pss in bytes, from smaps_rollup (kB there); undefined once the process has gone. */
const memoryOf = (pid: number): { rssBytes: number; pssBytes: number } | undefined => {
  try {
    const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(rollup)?.[1] ?? 0) * 1024;
    return { rssBytes: field('Rss'), pssBytes: field('Pss') };
  } catch {
    return undefined;
  }
};

const commandOf = (pid: number): string => {
  try {
    const line = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    return (line || readFileSync(`/proc/${pid}/comm`, 'utf8').trim()).slice(0, 120);
  } catch {
    return '?';
  }
};

/**
 * Every process from `rootPid` down (children, their children, ...) with its RSS and PSS, read
 * from `/proc/<pid>/smaps_rollup` (reading another user's needs root or the same uid). Detached
 * children (their own process group or session) are still found: the tree follows parent pids.
 */
export const measureProcessTreeMemory = (rootPid: number): ProcessTreeMemory => {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = parentOf(Number(entry));
    if (parent !== undefined) parents.set(Number(entry), parent);
  }
  const tree = [rootPid];
  for (let index = 0; index < tree.length; index++) {
    for (const [pid, parent] of parents) if (parent === tree[index]) tree.push(pid);
  }
  const processes = tree.flatMap((pid) => {
    const memory = memoryOf(pid);
    return memory ? [{ pid, ppid: parents.get(pid) ?? 0, command: commandOf(pid), ...memory }] : [];
  });
  return {
    processes,
    rssBytes: processes.reduce((sum, { rssBytes }) => sum + rssBytes, 0),
    pssBytes: processes.reduce((sum, { pssBytes }) => sum + pssBytes, 0),
  };
};

const mb = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

/** A Markdown table, one row per process and a total. */
export const formatProcessTreeMemory = ({ processes, rssBytes, pssBytes }: ProcessTreeMemory): string =>
  [
    '| pid | process | RSS MB | PSS MB |',
    '|---:|---|---:|---:|',
    ...processes.map(({ pid, command, rssBytes: rss, pssBytes: pss }) => `| ${pid} | \`${command.replaceAll('|', '\\|')}\` | ${mb(rss)} | ${mb(pss)} |`),
    `| | **total (${processes.length} processes)** | **${mb(rssBytes)}** | **${mb(pssBytes)}** |`,
  ].join('\n');

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `npm start` apart from any other (own DATA_DIR, free ports), measures it idle, stops it. */
const measureIdleStart = async (): Promise<number> => {
  const settleMs = Number(process.env.MEASURE_SETTLE_S ?? 10) * 1000;
  const dataDir = mkdtempSync(join(tmpdir(), 'measure-memory-'));
  const port = await freePort();
  const env = {
    ...process.env,
    DATA_DIR: dataDir,
    PORT: String(port),
    SERVICE_PORT_BASE: String(await freePortBase()),
    EMBEDDED_POSTGRES_PORT: String(await freePort()),
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
  };
  const root = new URL('../..', import.meta.url);
  // `npm start` itself, as a person runs it: npm's own process is part of what it costs.
  const child = spawn('npm', ['start', '--silent'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const startedAt = Date.now();
    for (;;) {
      if (child.exitCode !== null) throw new Error(`npm start exited:\n${output}`);
      if (Date.now() - startedAt > 180_000) throw new Error(`npm start was not ready within 180 s:\n${output}`);
      const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (response) => response.status === 200,
        () => false,
      );
      if (ready) break;
      await delay(200);
    }
    const readyAfterMs = Date.now() - startedAt;
    await delay(settleMs);
    const memory = measureProcessTreeMemory(child.pid!);
    process.stdout.write(`npm start: ready after ${(readyAfterMs / 1000).toFixed(1)} s; measured ${settleMs / 1000} s later, idle, before any PDF.\n\n`);
    process.stdout.write(`${formatProcessTreeMemory(memory)}\n`);
    return 0;
  } finally {
    const signalGroup = (signal: NodeJS.Signals) => {
      try {
        process.kill(-child.pid!, signal);
      } catch {
        // already gone
      }
    };
    // As a Ctrl-C in its terminal would: the whole foreground group.
    signalGroup('SIGINT');
    const stopped = await Promise.race([exited.then(() => true), delay(30_000).then(() => false)]);
    if (!stopped) signalGroup('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
};

if (import.meta.main) process.exit(await measureIdleStart());
