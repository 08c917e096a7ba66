// Two entries, one build (ADR 0017): the hosted session page (index.html for /s/:id) and the dashboard
// (dashboard.html for /dashboard/*). Each page loads only its own entry, so the signer page stays small;
// hashed files of both live under /assets/.
import { resolve } from 'node:path';
import { defineConfig } from 'vite';
import solid from 'vite-plugin-solid';

export default defineConfig({
  base: '/',
  plugins: [solid()],
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    target: 'es2020',
    rollupOptions: {
      input: {
        index: resolve(import.meta.dirname, 'index.html'),
        dashboard: resolve(import.meta.dirname, 'dashboard.html'),
      },
    },
  },
});
