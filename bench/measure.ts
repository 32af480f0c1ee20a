import autocannon, { type Result } from 'autocannon';
import { median, medianCpu, perRequest, type CpuSeconds, type ProcessMeter } from './process-meter.ts';

export interface Load {
  label: string;
  connections: number;
  pipelining: number;
}

/** The loads every HTTP comparison runs: no pipelining at 10 and 50 connections, then pipelining 10. */
export const STANDARD_LOADS: readonly Load[] = [
  { label: '10 connections', connections: 10, pipelining: 1 },
  { label: '50 connections', connections: 50, pipelining: 1 },
  { label: '10 connections, pipelining 10', connections: 10, pipelining: 10 },
];

export interface Measurement {
  requestsPerSecond: number;
  /** Milliseconds; autocannon measures whole milliseconds. */
  p50: number;
  p99: number;
  /** CPU seconds per request of each watched process, over the measured window (the warm-up apart). */
  cpuPerRequest: CpuSeconds;
  /** 5xx answers, network errors and timeouts, warm-up included. */
  serverErrors: number;
}

export interface MeasureOptions {
  url: string;
  headers: Record<string, string>;
  load: Load;
  durationSeconds: number;
  warmupSeconds: number;
  meter: ProcessMeter;
}

const failuresOf = (result: Result) => {
  const serverErrors = Object.entries(result.statusCodeStats ?? {}).reduce((sum, [code, { count }]) => sum + (Number(code) >= 500 ? count : 0), 0);
  return { serverErrors: serverErrors + result.errors + result.timeouts, clientErrors: result.non2xx - serverErrors };
};

/**
 * Hammers one URL with autocannon: a warm-up, then the measured window, around which the meter
 * reads each process's CPU time. A 4xx means the benchmark asks wrongly, so it throws; 5xx and
 * failed requests are counted for the report.
 */
export const measure = async ({ url, headers, load, durationSeconds, warmupSeconds, meter }: MeasureOptions): Promise<Measurement> => {
  const options = { url, headers, connections: load.connections, pipelining: load.pipelining };
  const warmup = warmupSeconds > 0 ? failuresOf(await autocannon({ ...options, duration: warmupSeconds })).serverErrors : 0;
  const { value: result, cpu } = await meter.window(() => autocannon({ ...options, duration: durationSeconds }));
  const { serverErrors, clientErrors } = failuresOf(result);
  if (clientErrors > 0 || result['2xx'] === 0) {
    throw new Error(`${url} (${load.label}): ${result.non2xx} non-2xx answers of ${result.requests.total}, ${clientErrors} of them 4xx`);
  }
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuPerRequest: perRequest(cpu, result['2xx']),
    serverErrors: warmup + serverErrors,
  };
};

/**
 * Measures several targets under one load, in turn, for `rounds` rounds (A B C, A B C, ...), and
 * gives each target the median of its rounds: a machine whose speed drifts during the run (other
 * tenants, a checkpoint) then weighs on every target alike, and one bad stretch moves no figure.
 */
export const measureSideBySide = async <Name extends string>(
  targets: Readonly<Record<Name, { url: string; headers: Record<string, string> }>>,
  options: Omit<MeasureOptions, 'url' | 'headers'> & { rounds: number; onMeasure?: (name: Name, round: number) => void },
): Promise<Record<Name, Measurement>> => {
  const names = Object.keys(targets) as Name[];
  const samples = new Map<Name, Measurement[]>(names.map((name) => [name, []]));
  for (let round = 1; round <= options.rounds; round += 1) {
    for (const name of names) {
      options.onMeasure?.(name, round);
      samples.get(name)!.push(await measure({ ...options, ...targets[name] }));
    }
  }
  return Object.fromEntries(
    names.map((name) => {
      const taken = samples.get(name)!;
      return [
        name,
        {
          requestsPerSecond: median(taken.map((m) => m.requestsPerSecond)),
          p50: median(taken.map((m) => m.p50)),
          p99: median(taken.map((m) => m.p99)),
          cpuPerRequest: medianCpu(taken.map((m) => m.cpuPerRequest)),
          serverErrors: taken.reduce((sum, m) => sum + m.serverErrors, 0),
        },
      ];
    }),
  ) as Record<Name, Measurement>;
};
