import { listProcesses, processTree, readMemory, type ProcessStat } from './proc.ts';

/** A process the report names: a service, PostgreSQL, the bare hop, the benchmark itself. */
export interface WatchedProcess {
  name: string;
  pid: number;
  /** Only the process itself, not its descendants: the benchmark's own children are the services. */
  alone?: boolean;
}

export interface MemoryUsage {
  name: string;
  processes: number;
  rssBytes: number;
  pssBytes: number;
}

/** CPU seconds a window cost each watched process, by name; absent when the process changed meanwhile. */
export type CpuSeconds = Record<string, number>;

const MEMORY_SAMPLE_MS = 1_000;

const membersOf = (watched: WatchedProcess, all: readonly ProcessStat[]): ProcessStat[] =>
  watched.alone ? all.filter((stat) => stat.pid === watched.pid) : processTree(watched.pid, all);

/**
 * Reads CPU time and memory of the watched processes around measured windows. CPU of a process
 * tree counts the children its members have reaped, so a PostgreSQL backend that exits within
 * the window is still paid for.
 */
export class ProcessMeter {
  readonly #watched: () => readonly WatchedProcess[];
  readonly #peak = new Map<string, MemoryUsage>();

  constructor(watched: () => readonly WatchedProcess[]) {
    this.#watched = watched;
  }

  /** The processes it reads now, in the order the report shows them. */
  names(): string[] {
    return this.#watched().map(({ name }) => name);
  }

  #cpu(): Map<string, { pid: number; seconds: number }> {
    const all = listProcesses();
    return new Map(
      this.#watched().map((watched) => {
        const seconds = watched.pid === process.pid && watched.alone
          ? (({ user, system }) => (user + system) / 1e6)(process.cpuUsage())
          : membersOf(watched, all).reduce((sum, stat) => sum + stat.cpuSeconds + stat.reapedChildrenCpuSeconds, 0);
        return [watched.name, { pid: watched.pid, seconds }];
      }),
    );
  }

  /** RSS and PSS of each watched process (with its descendants) now. */
  memory(): MemoryUsage[] {
    const all = listProcesses();
    return this.#watched().map((watched) => {
      const members = membersOf(watched, all);
      const usages = members.map((stat) => readMemory(stat.pid) ?? { rssBytes: 0, pssBytes: 0 });
      return {
        name: watched.name,
        processes: members.length,
        rssBytes: usages.reduce((sum, usage) => sum + usage.rssBytes, 0),
        pssBytes: usages.reduce((sum, usage) => sum + usage.pssBytes, 0),
      };
    });
  }

  #notePeak(): void {
    for (const usage of this.memory()) {
      const peak = this.#peak.get(usage.name);
      this.#peak.set(usage.name, {
        name: usage.name,
        processes: Math.max(peak?.processes ?? 0, usage.processes),
        rssBytes: Math.max(peak?.rssBytes ?? 0, usage.rssBytes),
        pssBytes: Math.max(peak?.pssBytes ?? 0, usage.pssBytes),
      });
    }
  }

  /** The highest memory each process reached during the windows so far (sampled each second). */
  peakUnderLoad(): MemoryUsage[] {
    return [...this.#peak.values()];
  }

  /** Runs `work` as a measured window: the CPU seconds it cost each process, and memory sampled meanwhile. */
  async window<T>(work: () => Promise<T>): Promise<{ value: T; cpu: CpuSeconds }> {
    const before = this.#cpu();
    const sampler = setInterval(() => this.#notePeak(), MEMORY_SAMPLE_MS);
    try {
      const value = await work();
      const after = this.#cpu();
      this.#notePeak();
      const cpu: CpuSeconds = {};
      for (const [name, { pid, seconds }] of after) {
        const start = before.get(name);
        if (start && start.pid === pid) cpu[name] = seconds - start.seconds;
      }
      return { value, cpu };
    } finally {
      clearInterval(sampler);
    }
  }
}

/** The key of the sum over every watched process. */
export const ALL = 'all of them';

export const totalCpu = (cpu: CpuSeconds): number =>
  Object.entries(cpu).reduce((sum, [name, seconds]) => sum + (name !== ALL && Number.isFinite(seconds) ? seconds : 0), 0);

/** CPU seconds per request, by process and for all of them, from a window's CPU seconds and the requests it completed. */
export const perRequest = (cpu: CpuSeconds, requests: number): CpuSeconds =>
  Object.fromEntries(
    Object.entries({ ...cpu, [ALL]: totalCpu(cpu) }).map(([name, seconds]) => [name, requests > 0 ? seconds / requests : Number.NaN]),
  );

const median = (values: readonly number[]): number => {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** Per process, the median over rounds. */
export const medianCpu = (rounds: readonly CpuSeconds[]): CpuSeconds => {
  const names = [...new Set(rounds.flatMap((round) => Object.keys(round)))];
  return Object.fromEntries(names.map((name) => [name, median(rounds.map((round) => round[name] ?? Number.NaN))]));
};

export { median };
