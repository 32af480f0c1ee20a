import type { MintedKey } from '../deploy/local/operator.ts';
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
  /** Progress lines, so a long run shows where it is. */
  progress: (text: string) => void;
}

/**
 * One benchmark of the run (gateway overhead now; billing finalize, PDFs and webhooks later).
 * The run starts the union of the services every selected section needs, once.
 */
export interface BenchSection {
  name: string;
  services: readonly string[];
  /** Settings the section needs on every service (such as WEBHOOK_ALLOWED_HOSTS for a loopback receiver). */
  env?: Readonly<Record<string, string>>;
  run: (context: BenchContext) => Promise<Table>;
}
