import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NODE } from '../../deploy/local/service-process.ts';
import { startSystem, type TestSystem } from '../support/system.ts';

const run = promisify(execFile);
const REDOCLY = join(import.meta.dirname, '../../node_modules/@redocly/cli/bin/cli.js');
const CLIENT_DOCUMENT = join(import.meta.dirname, '../support/openapi.json');

let system: TestSystem;
let served: Response;
let document: Record<string, unknown>;

beforeAll(async () => {
  system = await startSystem({ services: ['catalog'] });
  served = await fetch(`${system.gatewayUrl}/api/v1/openapi.json`);
  document = (await served.json()) as Record<string, unknown>;
});

afterAll(async () => {
  await system?.stop();
});

describe('the OpenAPI document', () => {
  it('is served without credentials as OpenAPI 3.1', () => {
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toMatch(/^application\/json/);
    expect(document.openapi).toBe('3.1.0');
  });

  it('is the one the typed test client was generated from (else: npm run generate:client)', () => {
    const { servers, ...rest } = document;
    const { servers: _, ...generatedFrom } = JSON.parse(readFileSync(CLIENT_DOCUMENT, 'utf8')) as Record<string, unknown>;
    expect(servers).toEqual([{ url: `http://localhost:${new URL(system.gatewayUrl).port}` }]);
    expect(rest).toEqual(generatedFrom);
  });

  it('passes the Redocly linter without errors', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
    try {
      const file = join(dir, 'openapi.json');
      writeFileSync(file, JSON.stringify(document));
      // Redocly exits non-zero on any error; warnings alone pass.
      const lint = run(NODE, [REDOCLY, 'lint', file, '--format=stylish'], { env: { PATH: process.env.PATH ?? '', REDOCLY_TELEMETRY: 'off' } });
      await expect(lint.catch((error: { stdout?: string; stderr?: string }) => Promise.reject(new Error(`${error.stdout}\n${error.stderr}`)))).resolves.toBeDefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
