import autocannon from 'autocannon';

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
}

export interface MeasureOptions {
  url: string;
  headers: Record<string, string>;
  load: Load;
  durationSeconds: number;
  warmupSeconds: number;
}

/** Hammers one URL with autocannon after a warm-up; any failed request makes the figure meaningless, so it throws. */
export const measure = async ({ url, headers, load, durationSeconds, warmupSeconds }: MeasureOptions): Promise<Measurement> => {
  const result = await autocannon({
    url,
    headers,
    connections: load.connections,
    pipelining: load.pipelining,
    duration: durationSeconds,
    ...(warmupSeconds > 0 ? { warmup: { connections: load.connections, duration: warmupSeconds } } : {}),
  });
  const failed = result.non2xx + result.errors + result.timeouts;
  if (failed > 0 || result['2xx'] === 0) {
    throw new Error(
      `${url} (${load.label}): ${failed} failed of ${result.requests.total} (non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts})`,
    );
  }
  return { requestsPerSecond: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
};

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
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
      samples.get(name)!.push(await measure({ ...targets[name], load: options.load, durationSeconds: options.durationSeconds, warmupSeconds: options.warmupSeconds }));
    }
  }
  return Object.fromEntries(
    names.map((name) => {
      const taken = samples.get(name)!;
      return [name, { requestsPerSecond: median(taken.map((m) => m.requestsPerSecond)), p50: median(taken.map((m) => m.p50)), p99: median(taken.map((m) => m.p99)) }];
    }),
  ) as Record<Name, Measurement>;
};
