// What the kernel says about processes on this machine: CPU time and memory, read from /proc.
// CPU time survives a noisy machine where wall-clock figures do not: another tenant slows a
// request down but does not make it cost more cycles.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface ProcessStat {
  pid: number;
  ppid: number;
  /** The executable's name as the kernel keeps it (at most 15 characters). */
  comm: string;
  /** Seconds on a CPU, user and system, of the process itself. */
  cpuSeconds: number;
  /** Seconds of its children that it has waited for: a backend that exited still counts here. */
  reapedChildrenCpuSeconds: number;
}

export interface ProcessMemory {
  rssBytes: number;
  /** Proportional set size: a page shared by n processes counts 1/n in each, so sums are honest. */
  pssBytes: number;
}

const clockTicks = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

const readText = (path: string): string | undefined => {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
};

/** One process's /proc/<pid>/stat, or undefined once it has gone. */
export const readStat = (pid: number): ProcessStat | undefined => {
  const text = readText(`/proc/${pid}/stat`);
  if (!text) return undefined;
  // The name sits in parentheses and may itself hold spaces or parentheses: the fields follow the last ')'.
  const close = text.lastIndexOf(')');
  const comm = text.slice(text.indexOf('(') + 1, close);
  const fields = text.slice(close + 2).split(' ');
  // proc(5): after the name, field 3 (state) is fields[0]; ppid 4, utime 14, stime 15, cutime 16, cstime 17.
  const field = (number: number) => Number(fields[number - 3]);
  return {
    pid,
    ppid: field(4),
    comm,
    cpuSeconds: (field(14) + field(15)) / clockTicks,
    reapedChildrenCpuSeconds: (field(16) + field(17)) / clockTicks,
  };
};

/** Every process this user can see. */
export const listProcesses = (): ProcessStat[] =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readStat(Number(name)))
    .filter((stat): stat is ProcessStat => stat !== undefined);

/** The process and all its descendants, from one listing of /proc. */
export const processTree = (rootPid: number, all: readonly ProcessStat[] = listProcesses()): ProcessStat[] => {
  const children = new Map<number, ProcessStat[]>();
  for (const stat of all) children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), stat]);
  const root = all.find((stat) => stat.pid === rootPid);
  if (!root) return [];
  const tree: ProcessStat[] = [];
  const queue = [root];
  for (let stat = queue.shift(); stat; stat = queue.shift()) {
    tree.push(stat);
    queue.push(...(children.get(stat.pid) ?? []));
  }
  return tree;
};

/** RSS and PSS from /proc/<pid>/smaps_rollup (one read, no walk over every mapping), or undefined once gone. */
export const readMemory = (pid: number): ProcessMemory | undefined => {
  const text = readText(`/proc/${pid}/smaps_rollup`);
  if (!text) return undefined;
  const kilobytes = (label: string) => Number(new RegExp(`^${label}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0);
  return { rssBytes: kilobytes('Rss') * 1024, pssBytes: kilobytes('Pss') * 1024 };
};

/** The command line, shortened for a table, with `strip` (the repository's path, say) taken out. */
export const readCommand = (pid: number, max = 80, strip = ''): string => {
  const joined = (readText(`/proc/${pid}/cmdline`) ?? '').split('\0').filter(Boolean).join(' ');
  const command = strip ? joined.replaceAll(strip, '') : joined;
  return command.length > max ? `${command.slice(0, max - 1)}…` : command;
};
