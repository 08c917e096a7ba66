// The primitive registry (ADR 0054) is the one place a primitive is described. This test keeps it so: every
// entry is complete and usable, and every per-primitive list the compiler cannot see (the README's limits, the
// hosted page's copy, the committed webhook, OpenAPI and GraphQL contracts, the dashboard's generated enum)
// names exactly the registry's primitives. A new primitive fails here until each of those files knows it.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RECEIPT_LANGS, RECEIPT_WORDS } from '../../server/src/modules/receipt/receipt.words';
import { CONDITION_PRIMITIVES } from '../../server/src/modules/workflow/conditions';
import {
  maskOf,
  PRIMITIVE_SPECS,
  PRIMITIVES,
  primitivesOfMask,
} from '../../server/src/modules/workflow/primitives';
import { validateSteps } from '../../server/src/modules/workflow/workflow.steps';

const ROOT = path.resolve(__dirname, '../..');
const read = (rel: string) => fs.readFileSync(path.join(ROOT, rel), 'utf8');
const sorted = (xs: readonly string[]) => [...xs].sort();

/** Every `enum` under a property named `primitive`, and every object schema keyed by primitive, in a JSON Schema. */
function primitiveLists(node: unknown, out: string[][] = []): string[][] {
  if (Array.isArray(node)) for (const n of node) primitiveLists(n, out);
  else if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    const props = o.properties as Record<string, { enum?: string[] }> | undefined;
    if (props?.primitive?.enum) out.push(props.primitive.enum);
    // an object keyed by primitive (the catalog's flags, formats and protocols) has identify among its keys
    if (props && 'identify' in props && 'age_verify' in props) out.push(Object.keys(props));
    for (const v of Object.values(o)) primitiveLists(v, out);
  }
  return out;
}

describe('the primitive registry', () => {
  it('has one complete entry per primitive', () => {
    expect(Object.keys(PRIMITIVE_SPECS)).toEqual([...PRIMITIVES]);
    const bits = new Set<number>();
    const fields = new Set<string>();
    for (const p of PRIMITIVES) {
      const spec = PRIMITIVE_SPECS[p];
      expect(spec.name).toBe(p);
      // a power of two, never shared: the route's capability set is their sum
      expect(Number.isInteger(Math.log2(spec.bit)), `${p}.bit`).toBe(true);
      expect(bits.has(spec.bit), `${p}.bit is unique`).toBe(false);
      bits.add(spec.bit);
      expect(spec.graphqlField).toMatch(/^[a-z][A-Za-z]*$/);
      expect(fields.has(spec.graphqlField)).toBe(false);
      fields.add(spec.graphqlField);
      expect(spec.windowMinutes).toBeGreaterThan(0);
      expect(spec.formats.length).toBeGreaterThan(0);
      for (const f of spec.formats) expect(['dc+sd-jwt', 'mso_mdoc']).toContain(f);
      expect(spec.fields.length).toBeGreaterThan(0);
      expect(['full', 'outcome']).toContain(spec.auditStatus);
      expect(['result', 'evidence']).toContain(spec.holder.claimsIn);
      // an Annex C primitive binds no transaction data, so a request of it carries none
      for (const f of ['validate', 'request', 'result', 'auditFacts'] as const)
        expect(typeof spec[f], `${p}.${f}`).toBe('function');
    }
  });

  it("validates each primitive's example, refuses it without its own fields, and builds its wallet request", () => {
    for (const p of PRIMITIVES) {
      const spec = PRIMITIVE_SPECS[p];
      const [step] = validateSteps([{ primitive: p, ...spec.example }], true);
      expect(step).toMatchObject({ primitive: p, ...spec.example });
      for (const f of spec.fields) expect(step?.[f], `${p}.example sets ${f}`).toBeDefined();
      expect(() => validateSteps([{ primitive: p }], true), `${p} without its fields`).toThrow(/Step 1/);
      const documents = [
        { label: 'a.pdf', sha256: 'ab'.repeat(32), size: 1, content_type: 'application/pdf' },
      ];
      const { request } = spec.request(step as never, 'nonce-1234567890abcdefghijkl', { documents });
      expect(request, p).toHaveProperty('dcql_query');
      expect('transaction_data' in request, `${p}: Annex C only without transaction data`).toBe(!spec.annexC);
    }
  });

  it('derives the capability set of a route from the bits, both ways', () => {
    expect(primitivesOfMask(maskOf(PRIMITIVES))).toEqual([...PRIMITIVES]);
    for (const p of PRIMITIVES) expect(primitivesOfMask(maskOf([p]))).toEqual([p]);
    expect(primitivesOfMask(0)).toEqual([]);
    // the migration that created the column wrote these bits out; they are never renumbered
    expect(maskOf(['identify', 'age_verify', 'sign', 'attestation'])).toBe(15);
    expect(CONDITION_PRIMITIVES).toEqual(PRIMITIVES.filter((p) => PRIMITIVE_SPECS[p].conditions));
  });

  it("states each primitive's window in the README's limits table", () => {
    const row = read('README.md')
      .split('\n')
      .find((l) => l.startsWith('| Step window after the step starts |'));
    expect(row).toBeDefined();
    const stated = Object.fromEntries(
      [...(row as string).matchAll(/([a-z_]+) (\d+) min/g)].map((m) => [m[1], Number(m[2])]),
    );
    expect(stated).toEqual(Object.fromEntries(PRIMITIVES.map((p) => [p, PRIMITIVE_SPECS[p].windowMinutes])));
  });

  it("has the hosted page's copy of every primitive in every language", () => {
    for (const lang of ['en', 'de', 'fr']) {
      const text = read(`hosted-web/src/i18n/${lang}.ts`);
      for (const p of PRIMITIVES)
        for (const key of Object.values(PRIMITIVE_SPECS[p].ui))
          expect(text.includes(`'${key}':`), `${lang}: ${key} (${p})`).toBe(true);
    }
    for (const lang of RECEIPT_LANGS)
      expect(sorted(Object.keys(RECEIPT_WORDS[lang].primitive)), `receipt ${lang}`).toEqual(
        sorted(PRIMITIVES),
      );
  });

  it('names exactly the registry primitives in the committed webhook and OpenAPI contracts', () => {
    const files = [
      'schema/openapi.v1.json',
      ...fs.readdirSync(path.join(ROOT, 'schema/webhooks')).map((f) => `schema/webhooks/${f}`),
    ];
    let seen = 0;
    for (const f of files)
      for (const list of primitiveLists(JSON.parse(read(f)))) {
        expect(sorted(list), f).toEqual(sorted(PRIMITIVES));
        seen++;
      }
    expect(seen).toBeGreaterThan(3);
  });

  it('names exactly the registry primitives in the GraphQL schema and the dashboard generated types', () => {
    const graphql = read('schema/schema.graphql');
    const block = (kind: string, name: string) => {
      const m = new RegExp(`${kind} ${name} \\{([^}]*)\\}`).exec(graphql);
      expect(m, `${kind} ${name}`).not.toBeNull();
      return (m?.[1] ?? '')
        .split('\n')
        .map((l) => l.trim().split(':')[0]?.trim() ?? '')
        .filter((l) => l && !l.startsWith('"'));
    };
    expect(sorted(block('enum', 'Primitive'))).toEqual(sorted(PRIMITIVES));
    const fields = sorted(PRIMITIVES.map((p) => PRIMITIVE_SPECS[p].graphqlField));
    expect(sorted(block('type', 'PrimitiveAvailability'))).toEqual(fields);
    expect(sorted(block('type', 'PrimitiveFormats'))).toEqual(fields);
    const generated = read('hosted-web/src/graphql/generated.ts');
    const m = /export const Primitive = \{([^}]*)\}/.exec(generated);
    const values = [...(m?.[1] ?? '').matchAll(/'([a-z_]+)'/g)].map((v) => v[1] as string);
    expect(sorted(values)).toEqual(sorted(PRIMITIVES));
  });
});
