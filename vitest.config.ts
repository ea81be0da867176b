import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vitest/config';

// Two projects: engine/CLI/shared code runs in Node; renderer code in a DOM (happy-dom).
export default defineConfig({
  test: {
    reporters: ['default', './test/summaryReporter.ts'],
    projects: [
      {
        test: {
          name: 'node',
          environment: 'node',
          include: ['test/unit/**/*.test.ts', 'test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          exclude: ['test/unit/renderer/**'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
          // The browser tests serve the built renderer: build it first when it is missing or stale.
          globalSetup: ['test/e2e/ui/buildRenderer.ts'],
        },
      },
      {
        plugins: [vue()],
        test: {
          name: 'dom',
          environment: 'happy-dom',
          include: ['test/unit/renderer/**/*.test.ts'],
        },
      },
    ],
  },
});
