import { resolve } from 'node:path';
import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'electron-vite';

// One build for the three Electron targets. The main target also emits the
// headless CLI (plain Node, no electron import) so `bin/dataset-health.js`
// runs the same engine code as the app.
export default defineConfig({
  main: {
    build: {
      outDir: 'out/main',
      // TypeBox is bundled, not loaded from node_modules: its hundreds of small modules cost every CLI
      // command ~0.2 s to resolve at start, and bundled it is tree-shaken into a few kilobytes.
      externalizeDeps: { exclude: ['typebox', 'date-fns'] },
      rollupOptions: {
        input: {
          index: resolve(import.meta.dirname, 'electron/main/index.ts'),
          cli: resolve(import.meta.dirname, 'electron/cli/main.ts'),
        },
        // Each CLI command loads its own modules when it runs (import() in its action); tiny chunks of
        // constants and pure functions are merged, since every file a command opens costs its start.
        output: { experimentalMinChunkSize: 20_000 },
      },
    },
  },
  preload: {
    build: {
      outDir: 'out/preload',
      // A sandboxed preload cannot require() packages: bundle everything, as CommonJS.
      externalizeDeps: false,
      rollupOptions: {
        input: { index: resolve(import.meta.dirname, 'electron/preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(import.meta.dirname, 'renderer'),
    build: {
      outDir: resolve(import.meta.dirname, 'out/renderer'),
      rollupOptions: { input: resolve(import.meta.dirname, 'renderer/index.html') },
    },
    plugins: [vue()],
  },
});
