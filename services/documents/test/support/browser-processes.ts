import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const parentOf = (pid: string): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
};

/**
 * Browsers this test process launched: its child processes (Playwright starts Chromium as a
 * direct child; the browser's own renderers and helpers are its children). Vitest runs each test
 * file in a process of its own, so another file's browsers are not counted.
 */
export const browserProcesses = (): number[] =>
  readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry) && parentOf(entry) === process.pid)
    .filter((pid) => {
      try {
        return /chrom/i.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
      } catch {
        return false;
      }
    })
    .map(Number);

/**
 * An executable path whose browser a test can break and mend: `fail()` makes it exit at once (a
 * Chromium that cannot start), `mend()` makes it the real one.
 */
export const replaceableChromium = (realExecutablePath: string) => {
  const dir = mkdtempSync(join(tmpdir(), 'documents-chromium-'));
  const executablePath = join(dir, 'chromium');
  const install = (script: string) => {
    writeFileSync(executablePath, `#!/bin/sh\n${script}\n`);
    chmodSync(executablePath, 0o755);
  };
  install('exit 1');
  return {
    executablePath,
    fail: () => install('exit 1'),
    mend: () => install(`exec '${realExecutablePath.replaceAll("'", "'\\''")}' "$@"`),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
};
