import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { resolveChromium } from './chromium-executable.ts';

const dir = mkdtempSync(join(tmpdir(), 'chromium-path-'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('choosing the Chromium that prints', () => {
  it('takes CHROMIUM_PATH when it names an executable', async () => {
    const binary = join(dir, 'chrome');
    writeFileSync(binary, '#!/bin/sh\n');
    chmodSync(binary, 0o755);
    expect(await resolveChromium(binary)).toEqual({ found: true, executablePath: binary, source: 'CHROMIUM_PATH' });
  });

  it('reports a CHROMIUM_PATH that names nothing runnable instead of quietly using another browser', async () => {
    const notExecutable = join(dir, 'readme.txt');
    writeFileSync(notExecutable, 'not a browser');
    expect(await resolveChromium(join(dir, 'missing'))).toEqual({ found: false, reason: expect.stringContaining('is not an executable file') });
    expect(await resolveChromium(notExecutable)).toMatchObject({ found: false });
  });

  it('finds one on the machine or unpacks the bundled one when nothing is configured', async () => {
    const found = await resolveChromium(undefined);
    expect(found).toMatchObject({ found: true, source: expect.stringMatching(/^(machine|@sparticuz\/chromium)$/) });
  }, 120_000);
});
