import { defineConfig } from 'vitest/config';

// Real processes (providers, the reference casino, redis-servers) on fixed ports: one file at a time.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 120_000,
    pool: 'forks',
    fileParallelism: false,
    reporters: ['default'],
  },
});
