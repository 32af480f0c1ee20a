import { freePort } from '@invoicing/testing/free-port';
import { ChildScript, describeExit } from '../deploy/local/service-process.ts';

export interface BareHop {
  url: string;
  pid: number | undefined;
  stop: () => Promise<void>;
}

const STARTUP_TIMEOUT_MS = 15_000;

/** Starts `bench/bare-hop.ts` in its own process in front of `upstreamUrl`, adding `headers` to every request. */
export const startBareHop = async (upstreamUrl: string, headers: Record<string, string>): Promise<BareHop> => {
  const port = await freePort();
  let listening!: () => void;
  const started = new Promise<void>((resolve) => (listening = resolve));
  const child = new ChildScript({
    name: 'bare-hop',
    script: 'bench/bare-hop.ts',
    env: { ...process.env, UPSTREAM_URL: upstreamUrl, PORT: String(port), FORWARDED_HEADERS: JSON.stringify(headers) },
    sink: (_name, line) => {
      if (line === 'listening') listening();
      else process.stdout.write(`bare-hop | ${line}\n`);
    },
  });
  const failed = new Promise<string>((resolve) => {
    void child.exited.then((exit) => resolve(`exited with ${describeExit(exit)}. ${child.tail()}`));
    setTimeout(() => resolve(`did not start within ${STARTUP_TIMEOUT_MS} ms`), STARTUP_TIMEOUT_MS).unref();
  });
  const failure = await Promise.race([started.then(() => undefined), failed]);
  if (failure !== undefined) {
    await child.stop();
    throw new Error(`The bare hop ${failure}`);
  }
  return { url: `http://127.0.0.1:${port}`, pid: child.pid, stop: async () => void (await child.stop()) };
};
