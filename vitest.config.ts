import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'tools/**/*.test.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // GPU tests share one SwiftShader device; keep files in one fork so two
    // Dawn instances never fight over the 2 cores.
    pool: 'forks',
    fileParallelism: false,
  },
});
