import { accessSync, constants, closeSync, existsSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Where a Chromium for printing came from; or why there is none. */
export type ChromiumResolution =
  | { found: true; executablePath: string; source: 'CHROMIUM_PATH' | 'machine' | '@sparticuz/chromium' }
  | { found: false; reason: string };

/** Browsers a Debian, Ubuntu or Chrome install puts on the machine. */
const MACHINE_CANDIDATES = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome-stable',
  '/usr/bin/google-chrome',
  '/opt/google/chrome/chrome',
  '/snap/bin/chromium',
];

const isExecutable = (path: string): boolean => {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

const LOCK_STALE_MS = 120_000;
const LOCK_WAIT_MS = 180_000;
const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `work` while holding a lock file that other processes on the machine respect. @sparticuz/chromium
 * unpacks its binary into a fixed path in the temp directory and treats any file there as ready, so
 * two processes starting at once (test workers, services of one start) could launch a half-written
 * binary without it.
 */
const withMachineLock = async <T>(lockPath: string, work: () => Promise<T>): Promise<T> => {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      closeSync(openSync(lockPath, 'wx'));
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = Date.now() - (statSync(lockPath, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > LOCK_STALE_MS) rmSync(lockPath, { force: true });
      else if (Date.now() > deadline) throw new Error(`${lockPath} is held by another process for too long`);
      else await delay(100);
    }
  }
  try {
    return await work();
  } finally {
    rmSync(lockPath, { force: true });
  }
};

/**
 * The binary bundled in @sparticuz/chromium, unpacked once per machine and version. A marker
 * written after a complete unpack tells a finished binary from one a killed process left half
 * written, or one of another version (the package keys its cache by path alone).
 */
const unpackSparticuzChromium = async (): Promise<string> => {
  const { default: chromium } = await import('@sparticuz/chromium');
  const manifest = fileURLToPath(new URL('../package.json', import.meta.resolve('@sparticuz/chromium')));
  const { version } = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string };
  const binary = join(tmpdir(), 'chromium');
  const marker = join(tmpdir(), `chromium.unpacked-${version}`);
  return withMachineLock(join(tmpdir(), 'chromium.unpack.lock'), async () => {
    if (existsSync(marker) && isExecutable(binary)) return binary;
    rmSync(binary, { force: true });
    chromium.setGraphicsMode = false;
    const path = await chromium.executablePath();
    writeFileSync(marker, `${path}\n`);
    return path;
  });
};

/**
 * The Chromium that prints PDFs: `CHROMIUM_PATH` when set, else one installed on the machine,
 * else the one bundled in @sparticuz/chromium. A `CHROMIUM_PATH` that names nothing runnable is
 * reported, not silently replaced: the operator asked for that browser.
 */
export const resolveChromium = async (configuredPath: string | undefined): Promise<ChromiumResolution> => {
  if (configuredPath) {
    return isExecutable(configuredPath)
      ? { found: true, executablePath: configuredPath, source: 'CHROMIUM_PATH' }
      : { found: false, reason: `CHROMIUM_PATH=${configuredPath} is not an executable file` };
  }
  const installed = MACHINE_CANDIDATES.find(isExecutable);
  if (installed) return { found: true, executablePath: installed, source: 'machine' };
  try {
    return { found: true, executablePath: await unpackSparticuzChromium(), source: '@sparticuz/chromium' };
  } catch (error) {
    return { found: false, reason: `no Chromium on the machine and @sparticuz/chromium could not provide one (${(error as Error).message})` };
  }
};
