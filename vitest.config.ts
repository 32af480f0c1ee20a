import { defineConfig } from 'vitest/config';

const FAULT_TESTS = 'tests/fault/**/*.test.ts';

export default defineConfig({
  test: {
    globalSetup: ['packages/testing/src/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    env: { REDOCLY_TELEMETRY: 'off', TURBO_TELEMETRY_DISABLED: '1' },
    projects: [
      {
        extends: true,
        test: {
          name: 'main',
          include: ['packages/*/src/**/*.test.ts', 'services/*/src/**/*.test.ts', 'services/*/test/**/*.test.ts', 'tests/**/*.test.ts', 'deploy/test/**/*.test.ts'],
          exclude: [FAULT_TESTS, '**/node_modules/**'],
        },
      },
      {
        // The fault scenarios kill and time processes of a whole platform: `npm test` runs them after
        // every other test file, alone, so the rest of the suite does not compete with them for the CPU.
        extends: true,
        test: {
          name: 'fault',
          include: [FAULT_TESTS],
        },
      },
    ],
  },
});
