// Guard of the trust stamp (ADR 0063): every code path that writes what a route trusts (trusted issuers, X.509
// anchors, mdoc IACAs, a route's speaking mode, the route catalog itself) must bump the trust version (or, for
// the catalog's tables, the catalog version: both make the stamp) in the same transaction, or every node keeps
// answering from a cache that no longer says the truth. This scan lists every write site in server/src (the
// repository calls, query-builder writes and raw SQL on those tables) and fails on one that has no bump shortly
// before it in the same file; a file that starts writing them must be added to WRITERS, after review.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(__dirname, '../../server/src');

/** Entities and tables of trust (bumpTrustVersion) and of the route catalog (bumpCatalogVersion). */
const TRUST = {
  entities: ['TrustedIssuerEntity', 'TrustAnchorEntity', 'MdocTrustAnchorEntity', 'RouteSpeakingEntity'],
  tables: ['trusted_issuer', 'trust_anchor', 'mdoc_trust_anchor', 'route_speaking'],
};
const CATALOG = {
  entities: ['CredentialRouteEntity', 'CredentialIssuerEntity', 'WalletEntity'],
  tables: ['credential_route', 'credential_issuer', 'wallet'],
};

/** The files that write those tables today (reviewed): a new one fails until it is added here. */
const WRITERS = [
  'modules/catalog/catalog.factory.ts',
  'modules/catalog/catalog.service.ts',
  'modules/relying-party/speaking.ts',
  'modules/sandbox/sandbox-issuer.ts',
  'modules/verification/mdoc/mdoc-trust.ts',
  'modules/verification/trust-list-anchors.ts',
  'modules/verification/trust.ts',
  'tools/operator.ts',
];

/** How far before a write its bump may be (lines), at most; it must also be inside the same unit (unitStart). */
const WINDOW = 80;

/**
 * Where the unit a write belongs to begins: the nearest transaction opened, function or method started, or
 * operator command case before it. The bump must sit between that line and the write.
 */
const UNIT_START =
  /transactionWithRetry\(|\.transaction\(|^\s*(?:export\s+)?(?:async\s+)?function\b|^\s*(?:private\s+|public\s+|static\s+)*async\s+\w+\s*\(|^\s*case '/;

function sources(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'migrations' ? [] : sources(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.includes('test-') ? [p] : [];
  });
}

const WRITE = '(?:insert|update|delete|save|upsert|remove|softDelete|increment|decrement)';

/** Write sites of one group in a file's text: [line number, what matched]. */
function writeSites(text: string, group: { entities: string[]; tables: string[] }): [number, string][] {
  const ents = group.entities.join('|');
  const patterns = [
    // m.getRepository(X).update(…), also across lines
    new RegExp(`getRepository\\(\\s*(?:${ents})\\s*\\)\\s*\\.\\s*${WRITE}\\s*\\(`, 'g'),
    // query builder: .insert().into(X), .update(X), .delete().from(X)
    new RegExp(`\\.(?:into|update)\\(\\s*(?:${ents})\\s*[,)]`, 'g'),
    new RegExp(`\\.delete\\(\\)\\s*\\.from\\(\\s*(?:${ents})\\s*[,)]`, 'g'),
    // raw SQL
    new RegExp(
      `(?:INSERT\\s+(?:IGNORE\\s+)?INTO|REPLACE\\s+INTO|UPDATE|DELETE\\s+FROM)\\s+\`?(?:${group.tables.join('|')})\\b\`?`,
      'gi',
    ),
  ];
  const out: [number, string][] = [];
  const lineOf = (index: number) => text.slice(0, index).split('\n').length;
  for (const p of patterns) for (const m of text.matchAll(p)) out.push([lineOf(m.index), m[0]]);
  // a repository held in a variable (const repo = m.getRepository(X); … repo.update(…)): a write through the name
  // whose nearest assignment before it is a repository of these entities
  const held = /(?:const|let)\s+(\w+)\s*=\s*[\w.]*getRepository\(\s*(\w+)\s*\)/g;
  const assigned = [...text.matchAll(held)].map((m) => ({
    name: m[1] as string,
    entity: m[2] as string,
    at: m.index,
  }));
  for (const name of new Set(assigned.map((a) => a.name)))
    for (const m of text.matchAll(new RegExp(`\\b${name}\\s*\\.\\s*${WRITE}\\s*\\(`, 'g'))) {
      const last = assigned.filter((a) => a.name === name && a.at < m.index).pop();
      if (last && group.entities.includes(last.entity)) out.push([lineOf(m.index), m[0]]);
    }
  return out;
}

/** The names whose call bumps in a file: the bump itself, and functions whose first lines call it. */
function bumpers(text: string, bump: string[]): string[] {
  const lines = text.split('\n');
  const names = [...bump];
  lines.forEach((line, i) => {
    const def = line.match(
      /(?:const|let)\s+(\w+)\s*=\s*async\s*\(|^\s*(?:private\s+|public\s+|static\s+)*async\s+(\w+)\s*\(|(?:async\s+)?(\w+)\s*\([^)]*\)\s*(?::\s*[^{]+)?\{\s*$/,
    );
    const name = def?.[1] ?? def?.[2] ?? def?.[3];
    // its first lines (a signature may span several): the bump, before any other unit starts
    const body = lines.slice(i + 1, i + 20);
    const end = body.findIndex(
      (l) => UNIT_START.test(l) && !/transactionWithRetry\(|\.transaction\(/.test(l),
    );
    if (
      name &&
      [line, ...body.slice(0, end < 0 ? undefined : end)].some((l) => bump.some((b) => l.includes(`${b}(`)))
    )
      names.push(name);
  });
  return names;
}

interface Finding {
  file: string;
  line: number;
  site: string;
}

function unbumped(): { writers: Set<string>; findings: Finding[]; sites: number } {
  const writers = new Set<string>();
  const findings: Finding[] = [];
  let sites = 0;
  for (const file of sources(ROOT)) {
    const text = fs.readFileSync(file, 'utf8');
    const rel = path.relative(ROOT, file).split(path.sep).join('/');
    for (const [group, bump] of [
      [TRUST, ['bumpTrustVersion']],
      [CATALOG, ['bumpCatalogVersion', 'bumpTrustVersion']],
    ] as const) {
      const found = writeSites(text, group);
      if (found.length === 0) continue;
      writers.add(rel);
      const calls = bumpers(text, [...bump]);
      const lines = text.split('\n');
      for (const [line, site] of found) {
        sites++;
        // the bump (or a helper that bumps, or the caller's bump in a private helper just above) before the write
        let from = line - 1;
        while (from > 0 && line - from < WINDOW && !UNIT_START.test(lines[from - 1] as string)) from--;
        const before = lines.slice(Math.max(0, from - 1), line);
        const ok = before.some(
          (l) =>
            (calls.some((c) => new RegExp(`\\b${c}\\(`).test(l)) && !/^\s*(?:\/\/|\*)/.test(l)) ||
            // a private helper of a transaction opened above: `stamp: bumped by <the caller>`, which must bump
            calls.includes(l.match(/stamp: bumped by (\w+)/)?.[1] ?? ''),
        );
        if (!ok) findings.push({ file: rel, line, site: site.replace(/\s+/g, ' ') });
      }
    }
  }
  return { writers, findings, sites };
}

describe('every write of trust bumps the trust stamp (ADR 0063)', () => {
  const { writers, findings, sites } = unbumped();

  it('finds the writers it knows (the scan itself still sees them)', () => {
    expect(sites).toBeGreaterThanOrEqual(20);
    expect([...writers].sort()).toEqual(WRITERS);
  });

  it('each write site has its bump before it, in the same transaction', () => {
    expect(findings).toEqual([]);
  });

  it('a write without a bump is caught', () => {
    const text = [
      'async function retire(m) {',
      '  await m.getRepository(TrustAnchorEntity).update({ id }, { retiredAt: now });',
      "  await m.query('UPDATE trusted_issuer SET retired_at = ? WHERE id = ?', [now, id]);",
      '}',
    ].join('\n');
    expect(writeSites(text, TRUST)).toHaveLength(2);
    expect(bumpers(text, ['bumpTrustVersion'])).toEqual(['bumpTrustVersion']);
  });
});
