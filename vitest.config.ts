import vue from '@vitejs/plugin-vue';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const root = fileURLToPath(new URL('.', import.meta.url));

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
          // Only Electron itself is faked: `electron` resolves to a recording fake, inside electron-store
          // too (inlined, so the alias applies to its import); every other library is the real one.
          alias: { electron: fileURLToPath(new URL('test/helpers/fakeElectronModule.ts', import.meta.url)) },
          server: { deps: { inline: ['electron-store'] } },
          env: { FAKE_ELECTRON_APP_PATH: root },
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
