import { localDatabaseSettings, parseConfig } from '@invoicing/service-kit';
import { z } from 'zod';

const clientCounts = z
  .string()
  .regex(/^\d+(,\d+)*$/, 'must be comma-separated client counts, such as 8,16,32,64')
  .transform((text) => [...new Set(text.split(',').map(Number))].sort((a, b) => a - b))
  .refine((counts) => counts.every((count) => count >= 1 && count <= 256), 'each count must be between 1 and 256');

const Settings = z.object({
  ...localDatabaseSettings,
  BENCH_DATABASE: z
    .string()
    .regex(/^[a-z_][a-z0-9_]*$/, 'must be a plain lowercase database name')
    .default('invoicing_bench')
    .describe('Database the benchmark seeds, on the server of DATABASE_URL or the embedded one; never the one npm start uses.'),
  BENCH_DURATION_S: z.coerce.number().int().min(1).max(600).default(5).describe('Seconds each measurement runs.'),
  BENCH_WARMUP_S: z.coerce.number().int().min(0).max(60).default(2).describe('Seconds of warm-up before each measurement.'),
  BENCH_ROUNDS: z.coerce.number().int().min(1).max(20).default(3).describe('Rounds of side-by-side comparisons, alternating their targets; each figure is the median over the rounds.'),
  BENCH_ONLY: z.string().optional().describe('Comma-separated section names to run; unset: all of them.'),
  BENCH_FINALIZE_CLIENTS: clientCounts.default([8, 16, 32, 64]).describe('Client counts of the finalize throughput curve.'),
  BENCH_BILLING_RUN_DRAFTS: z.coerce.number().int().min(10).max(1_000_000).default(10_000).describe('Drafts the billing run creates and finalizes.'),
  BENCH_SUBSCRIPTIONS: z.coerce.number().int().min(10).max(1_000_000).default(10_000).describe('Subscriptions that fall due at once in the subscriptions section (and invoices of its billing run).'),
  BENCH_PAGES_INVOICES: z.coerce.number().int().min(200).max(10_000_000).default(100_000).describe('Invoices in the workspace of the deep-page measurement.'),
  BENCH_PAGES_SAMPLES: z.coerce.number().int().min(5).max(100_000).default(200).describe('Requests of each page (first and deep) whose median latencies are compared.'),
  BENCH_METADATA_CUSTOMERS: z.coerce.number().int().min(200).max(10_000_000).default(100_000).describe('Customers with metadata in the workspace of the metadata filter measurement.'),
  BENCH_IDLE_SETTLE_S: z.coerce.number().int().min(0).max(300).default(10).describe('Seconds npm start may settle after /readyz before its idle memory is read.'),
  NATS_URL: z.url().optional(),
});
export type BenchSettings = z.infer<typeof Settings>;

export const loadBenchSettings = (env: NodeJS.ProcessEnv = process.env) => ({
  settings: parseConfig(Settings, env),
  inherited: { ...env },
});
