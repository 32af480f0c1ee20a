import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['packages/*/src/**/*.test.ts', 'services/*/src/**/*.test.ts', 'services/*/test/**/*.test.ts', 'tests/**/*.test.ts', 'deploy/test/**/*.test.ts'],
    globalSetup: ['packages/testing/src/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    env: { REDOCLY_TELEMETRY: 'off', TURBO_TELEMETRY_DISABLED: '1' },
  },
});
