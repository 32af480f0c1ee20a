import type { CpuSeconds } from './process-meter.ts';

/** The p-th percentile of the samples (nearest rank). */
export const percentile = (samples: readonly number[], p: number): number => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

/** Adds one window's CPU seconds, by process, to a running total. */
export const sumCpu = (into: CpuSeconds, cpu: CpuSeconds): void => {
  for (const [name, seconds] of Object.entries(cpu)) into[name] = (into[name] ?? 0) + seconds;
};
