import { defineConfig } from 'vitest/config';

/**
 * Browser tests of the admin console: playwright-core driving Debian's Chromium against the
 * provider booted in-process on the real PostgreSQL and Redis, with the reference casino over HTTP.
 */
export default defineConfig({
  test: {
    globalSetup: ['../services/provider/test/helpers/global-setup.ts', 'test/helpers/built.ts'],
    include: ['test/**/*.test.ts'],
    testTimeout: 90_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 1,
    reporters: ['default'],
  },
});
