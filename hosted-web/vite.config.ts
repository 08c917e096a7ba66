// Three entries, one build (ADR 0017, ADR 0047): the hosted session page (index.html for /s/:id), the
// dashboard (dashboard.html for /dashboard/*) and the receipt verification page (verify.html for /verify).
// Each page loads only its own entry, so the signer page stays small; hashed files live under /assets/.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { stripIgnoredCharacters } from 'graphql';
import { defineConfig, type Plugin } from 'vite';
import solid from 'vite-plugin-solid';

/**
 * `*.graphql?raw` imports (the documents both apps send, typed by scripts/codegen.mjs): the text with
 * comments and spacing stripped (graphql's own stripIgnoredCharacters, same document to the server), so
 * what documents the files carry for people costs the bundles nothing.
 */
function graphqlDocuments(): Plugin {
  return {
    name: 'graphql-documents',
    enforce: 'pre',
    load(id) {
      const [file, query] = id.split('?');
      if (!file?.endsWith('.graphql') || query !== 'raw') return null;
      this.addWatchFile(file);
      return `export default ${JSON.stringify(stripIgnoredCharacters(readFileSync(file, 'utf8')))};`;
    },
  };
}

export default defineConfig({
  base: '/',
  plugins: [graphqlDocuments(), solid()],
  build: {
    outDir: 'dist',
    assetsDir: 'assets',
    target: 'es2020',
    rollupOptions: {
      input: {
        index: resolve(import.meta.dirname, 'index.html'),
        dashboard: resolve(import.meta.dirname, 'dashboard.html'),
        verify: resolve(import.meta.dirname, 'verify.html'),
      },
    },
  },
});
