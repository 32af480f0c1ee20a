import { parseArgs } from 'node:util';
import { parsePublicId, type Scope } from '@invoicing/contracts';
import type { Mode } from '@invoicing/service-kit/data-space';
import { parseMode, parseScopes } from '../modules/api-keys/api-key.domain.ts';

export type AdminCommand =
  | { name: 'keys create'; workspace: string; scopes: Scope[]; mode: Mode }
  | { name: 'keys list'; workspace: string | undefined }
  | { name: 'keys revoke'; keyId: string }
  | { name: 'workspaces list' };

/** A command line the operator must correct: exit code 2, nothing touched. */
export class UsageError extends Error {
  override name = 'UsageError';
}

export const USAGE = `Usage (from the repository root):
  npm run --silent admin -- keys create --workspace <slug> --scopes <comma list, or all> [--mode live|test]
  npm run --silent admin -- keys list [--workspace <slug>]
  npm run --silent admin -- keys revoke <key_id>
  npm run --silent admin -- workspaces list
A key is live (inv_live_…, the default) or test (inv_test_…: sees only the workspace's test data).
Each result is one JSON line on stdout. Exit codes: 0 done, 1 failed, 2 wrong usage.`;

const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

const workspaceSlug = (value: string | undefined): string => {
  if (value === undefined) throw new UsageError('--workspace <slug> is required.');
  if (!SLUG.test(value)) throw new UsageError(`Workspace slug '${value}' is invalid: use 1 to 63 lowercase letters, digits and hyphens.`);
  return value;
};

/** Parses the arguments after `npm run admin --`; throws UsageError on anything it does not understand. */
export const parseAdminCommand = (argv: readonly string[]): AdminCommand => {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { workspace: { type: 'string' }, scopes: { type: 'string' }, mode: { type: 'string' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { positionals, values } = parsed;
  const [group, verb, ...rest] = positionals;
  const command = `${group ?? ''} ${verb ?? ''}`.trim();
  const allowOnly = (...allowed: string[]) => {
    const extra = Object.keys(values).filter((option) => !allowed.includes(option));
    if (extra.length > 0) throw new UsageError(`'${command}' takes no --${extra.join(', --')}.`);
  };
  const noMorePositionals = (count: number) => {
    if (rest.length > count) throw new UsageError(`Unexpected argument '${rest[count]}'.`);
  };

  switch (command) {
    case 'keys create': {
      allowOnly('workspace', 'scopes', 'mode');
      noMorePositionals(0);
      const workspace = workspaceSlug(values.workspace);
      if (values.scopes === undefined) throw new UsageError('--scopes <comma list, or all> is required.');
      const scopes = parseScopes(values.scopes);
      if (!scopes.ok) throw new UsageError(`Unknown scope(s): ${scopes.unknown.join(', ')}. Use 'all' or names from the specification, such as clients:read.`);
      const mode = parseMode(values.mode ?? 'live');
      if (mode === undefined) throw new UsageError(`Unknown mode '${values.mode}': use --mode live or --mode test.`);
      return { name: command, workspace, scopes: scopes.scopes, mode };
    }
    case 'keys list':
      allowOnly('workspace');
      noMorePositionals(0);
      return { name: command, workspace: values.workspace === undefined ? undefined : workspaceSlug(values.workspace) };
    case 'keys revoke': {
      allowOnly();
      noMorePositionals(1);
      const given = rest[0];
      if (given === undefined) throw new UsageError('keys revoke needs a <key_id>.');
      const keyId = parsePublicId('apiKey', given);
      if (keyId === undefined) throw new UsageError(`'${given}' is not a key id (key_… as printed by keys create or keys list).`);
      return { name: command, keyId };
    }
    case 'workspaces list':
      allowOnly();
      noMorePositionals(0);
      return { name: command };
    default:
      throw new UsageError(command === '' ? 'No command given.' : `Unknown command '${command}'.`);
  }
};
