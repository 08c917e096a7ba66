// The folders of server/src import each other in one direction only (ADR 0055): every module under
// server/src/modules, and app/, common/, config/, db/, graphql/, tools/ and the root files, read as one node
// each, form no circle, directly (two folders importing each other) or through others. Shared atoms live on the
// ground floor (common/, db/, graphql/'s context and scalars, a small module such as timeline/ or kms/) and the
// composition (app/, service.ts) sits on top. A circle means an atom still lives inside a feature: move it down.
// Counted like import-graph.test.ts (type-only and literal dynamic imports too), shipped code only: tests and
// test support (a file name with a `test` part, e.g. test-database.ts, *.test-support.ts, x509-test-pki.ts) may
// reach up to app/ to open a database with every table.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { circles, importGraph } from '../support/import-graph';

const ROOT = path.resolve(__dirname, '../..');
const SRC = path.join(ROOT, 'server/src');

const isTestSupport = (file: string): boolean => /(^|[.-])test([.-]|$)/.test(path.basename(file));

function shippedFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return shippedFiles(p);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') && !isTestSupport(p) ? [p] : [];
  });
}

/** The folder a file belongs to: `modules/<name>` for a module, the top folder otherwise, `.` for root files. */
export function folderOf(file: string): string {
  const parts = path.relative(SRC, file).split(path.sep);
  if (parts[0] === 'modules') return `modules/${parts[1]}`;
  return parts.length > 1 ? (parts[0] as string) : '.';
}

/** The folder graph: an edge a -> b when a file of a imports a file of b (a != b). */
export function folderGraph(
  files: Map<string, string[]>,
  folder: (f: string) => string,
): Map<string, string[]> {
  const out = new Map<string, Set<string>>();
  for (const [from, tos] of files) {
    const a = folder(from);
    if (!out.has(a)) out.set(a, new Set());
    for (const to of tos) {
      const b = folder(to);
      if (b !== a) out.get(a)?.add(b);
    }
  }
  return new Map([...out].map(([k, v]) => [k, [...v].sort()]));
}

/** For a circle, the imports that make it (a few per edge), so a failure names the files to change. */
function explain(scc: string[], files: Map<string, string[]>): string[] {
  const inScc = new Set(scc);
  const lines: string[] = [];
  for (const [from, tos] of files)
    for (const to of tos) {
      const a = folderOf(from);
      const b = folderOf(to);
      if (a !== b && inScc.has(a) && inScc.has(b))
        lines.push(`${path.relative(SRC, from)} -> ${path.relative(SRC, to)}`);
    }
  return lines.sort();
}

describe('folder import graph', () => {
  it('finds a circle of folders, direct or through a third (the check itself works)', () => {
    const at = (f: string) => path.join(SRC, f);
    const files = new Map([
      [at('modules/a/x.ts'), [at('modules/b/y.ts')]],
      [at('modules/b/y.ts'), [at('modules/c/z.ts')]],
      [at('modules/c/z.ts'), [at('modules/a/w.ts')]],
      [at('modules/a/w.ts'), [at('common/ids.ts')]],
      [at('common/ids.ts'), []],
    ]);
    expect(circles(folderGraph(files, folderOf))).toEqual([['modules/a', 'modules/b', 'modules/c']]);
    // a folder importing itself is no circle; a file-level-acyclic pair of folders still is one
    const pair = new Map([
      [at('modules/a/x.ts'), [at('modules/a/w.ts'), at('modules/b/y.ts')]],
      [at('modules/b/y.ts'), []],
      [at('modules/b/v.ts'), [at('modules/a/w.ts')]],
      [at('modules/a/w.ts'), []],
    ]);
    expect(circles(folderGraph(pair, folderOf))).toEqual([['modules/a', 'modules/b']]);
    expect(folderOf(at('service.ts'))).toBe('.');
    expect(isTestSupport('db/test-database.ts')).toBe(true);
    expect(isTestSupport('webhook/webhook.relay.test-support.ts')).toBe(true);
    expect(isTestSupport('verification/x509-test-pki.ts')).toBe(true);
    expect(isTestSupport('modules/verification/attestation.ts')).toBe(false);
    expect(isTestSupport('modules/webhook/latest.ts')).toBe(false);
  });

  it('no two folders of server/src import each other, directly or through a circle', () => {
    const files = importGraph(shippedFiles(SRC));
    expect(files.size).toBeGreaterThan(100);
    const folders = folderGraph(files, folderOf);
    expect(folders.size).toBeGreaterThan(20);
    const found = circles(folders).map((scc) => ({ folders: scc, imports: explain(scc, files) }));
    expect(found).toEqual([]);
  });
});
