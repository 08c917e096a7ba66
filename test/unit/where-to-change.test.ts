// Keeps the README's "Where do I change X" true (issue 30, ADR 0057): every file it names exists; every /v1
// route has a GraphQL twin or is listed as REST-only; every code a /t route can answer has the signer page's
// words in each language; the transition table is the state machine's, row for row; and the layout list names
// every module folder.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { de } from '../../hosted-web/src/i18n/de';
import { en } from '../../hosted-web/src/i18n/en';
import { fr } from '../../hosted-web/src/i18n/fr';
import { ERROR_CODES } from '../../server/src/common/errors';
import { type SessionEvent, TRANSITIONS } from '../../server/src/modules/session/session.machine';
import { declaredApi } from '../../server/src/tools/api-contract';
import { contractOf } from '../../server/src/tools/openapi';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const readme = fs.readFileSync(path.join(root, 'README.md'), 'utf8');

/** The README section from its heading to the next `## ` heading. */
function section(heading: string): string {
  const start = readme.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`README.md has no section ${heading}`);
  const end = readme.indexOf('\n## ', start + heading.length + 2);
  return readme.slice(start, end < 0 ? undefined : end);
}
const where = section('## Where do I change X');
/** One answer of the section: from its bold question to the next. */
const answer = (q: string): string => {
  const start = where.indexOf(`**${q}`);
  if (start < 0) throw new Error(`no answer "${q}"`);
  const end = where.indexOf('\n**', start + 2);
  return where.slice(start, end < 0 ? undefined : end);
};

const { routes } = declaredApi();
// problems the page shows with its generic words: the service's own trouble, and a request the page itself got
// wrong (never the person's doing: a malformed body, a protocol it was not offered)
const GENERIC = new Set([
  'internal_error',
  'service_unavailable',
  'validation_failed',
  'invalid_json',
  'protocol_not_offered',
]);

describe('README: where do I change X', () => {
  it('names only files that exist', () => {
    const named = [...where.matchAll(/`([\w./-]+\/[\w.-]+\.(?:ts|tsx|md|json|graphql))`/g)].map(
      (m) => m[1] as string,
    );
    expect(named.length).toBeGreaterThan(10);
    const missing = named.filter((f) => !f.includes('<') && !fs.existsSync(path.join(root, f)));
    expect(missing).toEqual([]);
  });

  it('answers the four questions, each with a short list', () => {
    for (const q of [
      'Add a primitive',
      'Add an error code',
      'Add a route with its GraphQL twin',
      'Add a transition',
    ]) {
      const bullets = answer(q)
        .split('\n')
        .filter((l) => l.startsWith('- '));
      expect(bullets.length, q).toBeGreaterThan(0);
      expect(bullets.length, q).toBeLessThanOrEqual(8);
    }
    expect(answer('Add a primitive')).toContain('ADR 0054');
  });

  it('every /v1 route has a GraphQL twin, or is listed as REST-only', () => {
    const schema = buildSchema(fs.readFileSync(path.join(root, 'schema/schema.graphql'), 'utf8'));
    const fields = new Set([
      ...Object.keys(schema.getQueryType()?.getFields() ?? {}),
      ...Object.keys(schema.getMutationType()?.getFields() ?? {}),
    ]);
    const restOnlyLine =
      answer('Add a route')
        .split('\n')
        .find((l) => l.includes('REST-only')) ?? '';
    const restOnly = new Set([...restOnlyLine.matchAll(/`(\w+)`/g)].map((m) => m[1]));
    const twinless: string[] = [];
    for (const r of routes.routes.filter((x) => x.path.startsWith('/v1/'))) {
      const op = contractOf(r).operationId ?? `${r.method} ${r.path}`;
      const bare = op.replace(/^(get|list)([A-Z])/, (_m, _p, c: string) => c.toLowerCase());
      if (!fields.has(op) && !fields.has(bare) && !restOnly.has(op)) twinless.push(op);
    }
    expect(twinless).toEqual([]);
    // a REST-only entry names a real route that really has no twin
    for (const op of restOnly)
      expect(
        routes.routes.some((r) => contractOf(r).operationId === op),
        op,
      ).toBe(true);
  });

  it('every error code is in the closed list, and each a /t route answers has the signer page’s words', () => {
    const signerCodes = new Set(
      routes.routes.filter((r) => r.path.startsWith('/t/')).flatMap((r) => contractOf(r).allErrors ?? []),
    );
    expect(signerCodes.size).toBeGreaterThan(3);
    for (const code of signerCodes) expect(Object.hasOwn(ERROR_CODES, code), code).toBe(true);
    const wordless = (m: Record<string, string>) =>
      [...signerCodes].filter((c) => !GENERIC.has(c) && !(`error.${c}` in m));
    expect({ en: wordless(en), de: wordless(de), fr: wordless(fr) }).toEqual({ en: [], de: [], fr: [] });
  });

  it('the transition table is the state machine’s, row for row', () => {
    const rows = [...answer('Add a transition').matchAll(/^\| `(\w+)` \| ([\w, ]+) \| (\w+) \|$/gm)].map(
      (m) => ({
        event: m[1],
        from: (m[2] as string).split(',').map((x) => x.trim()),
        to: m[3],
      }),
    );
    const machine = (Object.keys(TRANSITIONS) as SessionEvent[]).map((event) => ({
      event,
      from: [...TRANSITIONS[event].from],
      to: TRANSITIONS[event].to,
    }));
    expect(rows).toEqual(machine);
  });

  it('the layout list names every module folder', () => {
    const layout = section('## Layout');
    const modules = fs
      .readdirSync(path.join(root, 'server/src/modules'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
    expect(modules.filter((m) => !new RegExp(`\\b${m}\\b`).test(layout))).toEqual([]);
  });
});
