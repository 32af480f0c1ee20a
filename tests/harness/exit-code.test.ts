import { spawn } from 'node:child_process';
import { expect, it } from 'vitest';

const VITEST = new URL('../../node_modules/.bin/vitest', import.meta.url).pathname;

// A dependency of the harness once ended every run with code 0 from its exit hook, so CI passed
// whatever failed. A failing test must fail the run, with the harness's own servers in play.
it('fails the run when a test fails, with the harness starting its own PostgreSQL and NATS', async () => {
  const env = { ...process.env };
  delete env.DATABASE_URL;
  delete env.NATS_URL;
  delete env.VITEST;
  delete env.VITEST_WORKER_ID;
  const child = spawn(VITEST, ['run', '--config', 'tests/harness/fixtures/vitest.fixture.config.ts'], {
    cwd: new URL('../..', import.meta.url),
    env,
    stdio: 'ignore',
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  expect(code).toBe(1);
}, 120_000);
