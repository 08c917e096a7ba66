// CI budget for the signer page: the JavaScript the browser must fetch before the page works (the entry
// script of dist/index.html plus every chunk it modulepreloads), gzipped, must stay within 60 KB. Measured
// from the build output, not from source, so whatever Vite actually emits is what is counted. The dashboard
// has its own HTML entry and is not counted here: a signer never loads it.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const BUDGET_BYTES = 60 * 1024;
const dist = join(dirname(fileURLToPath(import.meta.url)), '..', 'dist');

let html;
try {
  html = readFileSync(join(dist, 'index.html'), 'utf8');
} catch {
  console.error('size:check: dist/index.html not found; run `pnpm --filter hosted-web build` first');
  process.exit(2);
}

const files = new Set();
for (const m of html.matchAll(/<script[^>]*type="module"[^>]*src="([^"]+)"/g)) files.add(m[1]);
for (const m of html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g)) files.add(m[1]);
if (files.size === 0) {
  console.error('size:check: no module script found in dist/index.html');
  process.exit(2);
}

let total = 0;
for (const src of files) {
  const bytes = gzipSync(readFileSync(join(dist, src.replace(/^\//, ''))), { level: 9 }).length;
  total += bytes;
  console.log(`${src}  ${(bytes / 1024).toFixed(2)} KB gzipped`);
}
const verdict = total <= BUDGET_BYTES ? 'ok' : 'OVER BUDGET';
console.log(
  `signer page initial JS: ${(total / 1024).toFixed(2)} KB / ${BUDGET_BYTES / 1024} KB gzipped: ${verdict}`,
);
process.exit(total <= BUDGET_BYTES ? 0 : 1);
