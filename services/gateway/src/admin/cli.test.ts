import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { bearer, useGatewayBehindRecorder } from '../testing/gateway-fixture.ts';

const ROOT = join(import.meta.dirname, '../../../..');
const NODE = join(ROOT, 'node_modules/.bin/node');
const CLI = 'services/gateway/src/admin/cli.ts';

const fixture = useGatewayBehindRecorder((upstreamUrl) => ({ CATALOG_URL: upstreamUrl }));

/** Runs the operator command in its own process, as an operator would, against the gateway's database. */
const admin = async (...args: string[]) => {
  try {
    const { stdout, stderr } = await promisify(execFile)(NODE, [CLI, ...args], { cwd: ROOT, env: { ...process.env, DATABASE_URL: fixture.gateway.databaseUrl } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
};

const jsonLines = (stdout: string) => stdout.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);

const listCustomers = (key: string) => fixture.gateway.app.inject({ method: 'GET', url: '/api/v1/customers', headers: bearer(key) });

describe('the operator command', () => {
  it('creates a workspace and a key, printing one JSON line with a key that works through the gateway', async () => {
    const result = await admin('keys', 'create', '--workspace', 'cli-demo', '--scopes', 'clients:read,clients:write');

    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(1);
    const [line] = jsonLines(result.stdout);
    expect(line).toEqual({ workspace_id: expect.stringMatching(/^[0-9a-f-]{36}$/), key_id: expect.stringMatching(/^key_[0-9a-f]{32}$/), mode: 'live', key: expect.stringMatching(/^inv_live_[0-9A-Za-z]{65}$/) });
    expect((await listCustomers(line!.key as string)).statusCode).toBe(200);
  });

  it('creates a test key with --mode test, of the same workspace, listed with its mode', async () => {
    const live = jsonLines((await admin('keys', 'create', '--workspace', 'moded', '--scopes', 'clients:read')).stdout)[0]!;
    const result = await admin('keys', 'create', '--workspace', 'moded', '--scopes', 'clients:read', '--mode', 'test');

    expect(result.code).toBe(0);
    const [line] = jsonLines(result.stdout);
    expect(line).toEqual({ workspace_id: live.workspace_id, key_id: expect.stringMatching(/^key_[0-9a-f]{32}$/), mode: 'test', key: expect.stringMatching(/^inv_test_[0-9A-Za-z]{65}$/) });
    expect((await listCustomers(line!.key as string)).statusCode).toBe(200);
    const listed = jsonLines((await admin('keys', 'list', '--workspace', 'moded')).stdout);
    expect(listed.map((key) => key.mode)).toEqual(['live', 'test']);
  });

  it('reuses the workspace of a known slug', async () => {
    const first = jsonLines((await admin('keys', 'create', '--workspace', 'same', '--scopes', 'all')).stdout)[0];
    const second = jsonLines((await admin('keys', 'create', '--workspace=same', '--scopes=all')).stdout)[0];
    expect(second!.workspace_id).toBe(first!.workspace_id);
    expect(second!.key_id).not.toBe(first!.key_id);
  });

  it('lists keys without their secrets, and workspaces, one JSON line each', async () => {
    const { key_id, key } = jsonLines((await admin('keys', 'create', '--workspace', 'listed', '--scopes', 'products:read')).stdout)[0]!;

    const keys = jsonLines((await admin('keys', 'list', '--workspace', 'listed')).stdout);
    const workspaces = jsonLines((await admin('workspaces', 'list')).stdout);

    expect(keys).toEqual([
      { key_id, workspace_id: expect.any(String), workspace: 'listed', scopes: ['products:read'], mode: 'live', created: expect.any(String), revoked_at: null },
    ]);
    expect(JSON.stringify(keys)).not.toContain(key as string);
    expect(workspaces).toContainEqual({ workspace_id: keys[0]!.workspace_id, slug: 'listed', created: expect.any(String) });
  });

  it('revokes a key from another process, and the running gateway refuses it at once although it had cached it', async () => {
    const { key_id, key } = jsonLines((await admin('keys', 'create', '--workspace', 'revoked', '--scopes', 'clients:read')).stdout)[0]!;
    expect((await listCustomers(key as string)).statusCode).toBe(200);

    const result = await admin('keys', 'revoke', key_id as string);

    expect(result.code).toBe(0);
    expect(jsonLines(result.stdout)).toEqual([{ key_id, revoked_at: expect.any(String) }]);
    await expect.poll(async () => (await listCustomers(key as string)).statusCode, { timeout: 2_000, interval: 20 }).toBe(401);
    const [listed] = jsonLines((await admin('keys', 'list', '--workspace', 'revoked')).stdout);
    expect(listed!.revoked_at).toEqual(expect.any(String));
  });

  it.each([
    ['unknown scopes', ['keys', 'create', '--workspace', 'x', '--scopes', 'clients:read,clients:delete'], /clients:delete/],
    ['no scopes', ['keys', 'create', '--workspace', 'x'], /--scopes/],
    ['an invalid slug', ['keys', 'create', '--workspace', 'Not A Slug', '--scopes', 'all'], /slug/],
    ['an unknown mode', ['keys', 'create', '--workspace', 'x', '--scopes', 'all', '--mode', 'sandbox'], /--mode live or --mode test/],
    ['a mode on another command', ['keys', 'list', '--mode', 'test'], /--mode/],
    ['an unknown command', ['keys', 'rotate'], /Unknown command/],
    ['an unknown option', ['workspaces', 'list', '--all'], /--all/],
    ['a malformed key id', ['keys', 'revoke', 'nope'], /not a key id/],
  ])('exits with code 2 on %s, explaining on stderr and printing nothing on stdout', async (_name, args, message) => {
    const result = await admin(...args);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(message);
  });

  it('exits with code 1 when the key to revoke does not exist', async () => {
    const result = await admin('keys', 'revoke', 'key_0190f3e2c1b27a8e9d1f3c4b5a697887');
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/No API key/);
  });

  it('creates no workspace when the scopes are refused', async () => {
    await admin('keys', 'create', '--workspace', 'never-made', '--scopes', 'bogus');
    const workspaces = jsonLines((await admin('workspaces', 'list')).stdout);
    expect(workspaces.map((workspace) => workspace.slug)).not.toContain('never-made');
  });
});
