// The import graph of the shipped code has no circles: every module of server/src and hosted-web/src can be
// read bottom-up. Type-only imports count too (a circle of types is still two files that must change together).
// Tests and generated files are left out; dynamic import('…') with a literal path counts.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { circles, importGraph } from '../support/import-graph';

const ROOT = path.resolve(__dirname, '../..');
const ROOTS = ['server/src', 'hosted-web/src'];

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sourceFiles(p);
    return /\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

describe('import graph', () => {
  it('finds a circle when there is one (the check itself works)', () => {
    const g = new Map([
      ['a', ['b']],
      ['b', ['c']],
      ['c', ['a']],
      ['d', ['a']],
    ]);
    expect(circles(g)).toEqual([['a', 'b', 'c']]);
    expect(
      circles(
        new Map([
          ['a', ['b']],
          ['b', []],
        ]),
      ),
    ).toEqual([]);
  });

  it('server/src and hosted-web/src have no import circles', () => {
    const files = ROOTS.flatMap((r) => sourceFiles(path.join(ROOT, r)));
    expect(files.length).toBeGreaterThan(100);
    const graph = importGraph(files);
    const found = circles(graph).map((c) => c.map((f) => path.relative(ROOT, f)));
    expect(found).toEqual([]);
  });
});
