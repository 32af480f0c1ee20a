import { localDatabaseSettings, parseConfig } from '@invoicing/service-kit';
import { z } from 'zod';

const Settings = z.object({
  ...localDatabaseSettings,
  BENCH_DATABASE: z
    .string()
    .regex(/^[a-z_][a-z0-9_]*$/, 'must be a plain lowercase database name')
    .default('invoicing_bench')
    .describe('Database the benchmark seeds, on the server of DATABASE_URL or the embedded one; never the one npm start uses.'),
  BENCH_DURATION_S: z.coerce.number().int().min(1).max(600).default(5).describe('Seconds each measurement runs.'),
  BENCH_WARMUP_S: z.coerce.number().int().min(0).max(60).default(2).describe('Seconds of warm-up before each measurement.'),
  BENCH_ROUNDS: z.coerce.number().int().min(1).max(20).default(3).describe('Rounds of side-by-side HTTP comparisons, alternating their targets; each figure is the median over the rounds.'),
  BENCH_ONLY: z.string().optional().describe('Comma-separated section names to run; unset: all of them.'),
  NATS_URL: z.url().optional(),
});
export type BenchSettings = z.infer<typeof Settings>;

export const loadBenchSettings = (env: NodeJS.ProcessEnv = process.env) => ({
  settings: parseConfig(Settings, env),
  inherited: { ...env },
});
