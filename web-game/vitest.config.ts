import { defineConfig } from 'vitest/config';

/**
 * Browser tests: playwright-core driving Debian's Chromium against the provider booted in-process
 * on the real PostgreSQL and Redis (the provider's test helpers and its migrated template).
 */
export default defineConfig({
  test: {
    globalSetup: ['../services/provider/test/helpers/global-setup.ts', 'test/helpers/built.ts'],
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 90_000,
    pool: 'forks',
    maxWorkers: 2,
    reporters: ['default'],
  },
});
