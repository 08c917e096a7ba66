// Build of the hosted session page: served by the API process (index.html for /s/:id, hashed files under /assets/).
import { defineConfig } from 'vite';
import solid from 'vite-plugin-solid';

export default defineConfig({
  base: '/',
  plugins: [solid()],
  build: { outDir: 'dist', assetsDir: 'assets', target: 'es2020' },
});
