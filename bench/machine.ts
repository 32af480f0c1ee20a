import { readFileSync } from 'node:fs';
import { cpus, release, totalmem } from 'node:os';
import pg from 'pg';
import { megabytes } from './format.ts';
import { readStat } from './proc.ts';

export interface DatabaseServer {
  version: string;
  /** The postmaster's process id when PostgreSQL runs on this machine: its tree is every backend. */
  postmasterPid: number | undefined;
}

/** PostgreSQL's version and, when it runs here, its postmaster: the parent of this connection's backend. */
export const inspectDatabaseServer = async (databaseUrl: string): Promise<DatabaseServer> => {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ version: string; pid: number }>('select current_setting($1) as version, pg_backend_pid() as pid', ['server_version']);
    const backend = readStat(rows[0]!.pid);
    const postmaster = backend?.comm === 'postgres' ? readStat(backend.ppid) : undefined;
    return { version: rows[0]!.version, postmasterPid: postmaster?.comm === 'postgres' ? postmaster.pid : undefined };
  } finally {
    await client.end();
  }
};

const cpuModel = (): string => {
  try {
    return /^model name\s*:\s*(.+)$/m.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? cpus()[0]?.model ?? 'unknown';
  } catch {
    return cpus()[0]?.model ?? 'unknown';
  }
};

/** The machine's lines of the report. */
export const describeMachine = (postgresVersion: string, date: Date): [string, string][] => [
  ['CPU', cpuModel()],
  ['cores', String(cpus().length)],
  ['memory', megabytes(totalmem())],
  ['kernel', `Linux ${release()}`],
  ['Node.js', process.version],
  ['PostgreSQL', postgresVersion],
  ['date', date.toISOString()],
];
