import { defineConfig } from 'vitest/config';

const FAULT_TESTS = 'tests/fault/**/*.test.ts';
// Files that drive a whole platform hard for minutes and wait on its answers with deadlines: a
// second file beside them made the contract fuzz read a truncated public page and a mode-matrix
// webhook arrive after 20 s, so they run alone, after the rest of the main files.
const SOLO_TESTS = ['tests/fuzz/contract-fuzz.test.ts', 'tests/security/mode-matrix.test.ts'];

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
          exclude: [FAULT_TESTS, ...SOLO_TESTS, '**/node_modules/**'],
        },
      },
      {
        // `npm test` runs the main project two files at a time (`--maxWorkers=2`; vitest's default on
        // two cores is one): most files wait on their own platform's processes and sockets rather
        // than compute. These then run one at a time.
        extends: true,
        test: {
          name: 'solo',
          include: SOLO_TESTS,
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
