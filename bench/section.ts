import type { MintedKey } from '../deploy/local/operator.ts';
import type { BenchSettings } from './config.ts';
import type { ProcessMeter } from './process-meter.ts';
import type { Table } from './table.ts';

/** What the run gives every section: the running services and a way to get credentials. */
export interface BenchContext {
  gatewayUrl: string;
  /** Base URL of a service by name, for measuring it without the gateway. */
  serviceUrl: (name: string) => string;
  internalToken: string;
  /** The database the services run on, for sections that measure it directly. */
  databaseUrl: string;
  mintKey: (workspace: string, scopes: string) => Promise<MintedKey>;
  durationSeconds: number;
  warmupSeconds: number;
  /** Rounds of a side-by-side comparison: its targets measured in turn, each round, so drift on the machine hits them alike. */
  rounds: number;
  settings: BenchSettings;
  /** CPU time and memory of the section's processes (services, PostgreSQL, NATS, the benchmark itself) around measured windows. */
  meter: ProcessMeter;
  /** Watches one more process of the section's own (the bare hop) until the section ends. */
  watch: (name: string, pid: number) => void;
  /** Starts one service again with these settings on top of its own (FINALIZE_BATCH_MAX=1 for billing, say). */
  restartService: (name: string, env: Readonly<Record<string, string>>) => Promise<void>;
  /** Progress lines, so a long run shows where it is. */
  progress: (text: string) => void;
}

/** One target of the issue: the figure, the baseline measured beside it, and whether it holds. */
export interface TargetResult {
  target: string;
  figure: string;
  baseline: string;
  ratio: string;
  pass: boolean;
}

/** A file the section writes next to the report (the finalize chart). */
export interface ReportFile {
  name: string;
  content: string;
  /** Its line in the report (a Markdown image). */
  reference: string;
}

export interface SectionReport {
  tables: Table[];
  targets: TargetResult[];
  /** 5xx answers and failed requests (network errors, timeouts) the section saw, warm-ups included. */
  serverErrors: number;
  files?: ReportFile[];
}

/**
 * One benchmark of the run. The run starts the services it needs afresh (each with the gateway),
 * unless it is `standalone` and starts what it measures itself.
 */
export interface BenchSection {
  name: string;
  services: readonly string[];
  standalone?: boolean;
  /** Settings the section needs on every service (such as WEBHOOK_ALLOWED_HOSTS for a loopback receiver). */
  env?: Readonly<Record<string, string>>;
  run: (context: BenchContext) => Promise<SectionReport>;
}
