import { resolve } from 'node:path';
import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vite';
export default defineConfig({
  root: resolve(import.meta.dirname, 'renderer'),
  base: './',
  build: { outDir: resolve(import.meta.dirname, 'out/renderer'), emptyOutDir: true, minify: false },
  plugins: [vue()],
});
