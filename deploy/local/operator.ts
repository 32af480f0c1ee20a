import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { repositoryRoot } from '@invoicing/service-kit';
import { NODE } from './service-process.ts';

const run = promisify(execFile);

/** What `keys create` prints: the key is shown this once. */
export interface MintedKey {
  workspace_id: string;
  key_id: string;
  mode: 'live' | 'test';
  key: string;
}

/**
 * Runs the operator command (`npm run --silent admin -- <args>`) as its own process against a
 * database, and parses the one JSON line it prints.
 */
export const runOperatorCommand = async <T>(args: readonly string[], databaseUrl: string, env: NodeJS.ProcessEnv = {}): Promise<T> => {
  try {
    const { stdout } = await run(NODE, ['services/gateway/src/admin/cli.ts', ...args], {
      cwd: repositoryRoot(),
      env: { ...env, DATABASE_URL: databaseUrl },
    });
    return JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as T;
  } catch (error) {
    const { stderr } = error as { stderr?: string };
    throw new Error(`admin ${args.join(' ')} failed: ${stderr?.trim() || (error as Error).message}`);
  }
};

/** `keys create`: a new key (live unless told) for the workspace with that slug, created on first use. */
export const mintApiKey = (databaseUrl: string, workspace: string, scopes: string, env?: NodeJS.ProcessEnv, mode: 'live' | 'test' = 'live'): Promise<MintedKey> =>
  runOperatorCommand<MintedKey>(['keys', 'create', '--workspace', workspace, '--scopes', scopes, '--mode', mode], databaseUrl, env);
