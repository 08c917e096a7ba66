// Owns the breaking-change rules of the business API (ADR 0037, 0043): the contract surface (each /v1 and /t operation's
// request body, request headers and success answer, and each webhook event's payload, as JSON Schema from the
// zod schemas the routes carry) and the differences between two surfaces that break an integrator:
// - removed: a field of an answer or event that is gone, or no longer always present (was required);
// - narrowed: an input that accepts less than before (a type, enum value or null dropped, a tighter bound,
//   length or pattern), or an answer field whose type changed to values a client did not expect;
// - required: a new required input (a new required field or header, or an optional one made required).
// A breaking change is accepted only when an ADR records it with a line `breaking: <operation> <location>`.

import type { z } from 'zod';
import type { RouteDef } from '../common/http';
import { contractOf, inOpenApi, jsonSchema } from './openapi';

type Schema = Record<string, unknown>;

/** What the check compares: per operation (operationId, or `event:<name>`), its inputs and outputs. */
export interface ContractSurface {
  operations: Record<string, { input: Record<string, Schema>; output: Record<string, Schema> }>;
}

export interface BreakingChange {
  kind: 'removed' | 'narrowed' | 'required';
  operation: string;
  /** Where: `request.<field>…`, `header.<name>`, `response.<field>…`, `payload.<field>…`. */
  location: string;
  detail: string;
}

/**
 * Operations the breaking-change check covers: the public OpenAPI routes and the hosted transport routes
 * (/t) that declare a contract (internal, not in OpenAPI, but the hosted page and test wallets depend on them;
 * the page's types are generated from the same schemas, ADR 0043).
 */
export const inContractSurface = (r: RouteDef): boolean =>
  inOpenApi(r) || (r.path.startsWith('/t/') && r.contract !== undefined);

/** The surface of the routes above and of the declared webhook events. */
export function contractSurface(
  routes: readonly RouteDef[],
  events: Record<string, z.ZodType>,
): ContractSurface {
  const operations: ContractSurface['operations'] = {};
  for (const route of routes.filter(inContractSurface)) {
    const c = contractOf(route);
    const op = c.operationId ?? `${route.method.toUpperCase()} ${route.path}`;
    const input: Record<string, Schema> = {};
    const output: Record<string, Schema> = {};
    if (c.request) input.request = jsonSchema(c.request, 'input');
    for (const [type, s] of Object.entries(c.requestContent ?? {}))
      input[`request(${type})`] = jsonSchema(s, 'input');
    if (c.headers) {
      const properties: Schema = {};
      for (const [name, h] of Object.entries(c.headers)) properties[name] = jsonSchema(h.schema, 'input');
      input.header = { type: 'object', properties, required: [] };
    }
    if (c.response?.schema) output.response = jsonSchema(c.response.schema);
    operations[op] = { input, output };
  }
  for (const [event, schema] of Object.entries(events))
    operations[`event:${event}`] = { input: {}, output: { payload: jsonSchema(schema) } };
  return { operations };
}

// ----------------------------------------------------------------------------------------- the rules

const KINDS = ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'] as const;

const kindOf = (v: unknown): string =>
  v === null ? 'null' : Array.isArray(v) ? 'array' : Number.isInteger(v) ? 'integer' : typeof v;

/** The kinds of value a schema admits (an empty `{}` admits all); `integer` is within `number`. */
function kinds(s: Schema): Set<string> {
  if (Array.isArray(s.anyOf) || Array.isArray(s.oneOf)) {
    const out = new Set<string>();
    for (const m of (s.anyOf ?? s.oneOf) as Schema[]) for (const k of kinds(m)) out.add(k);
    return out;
  }
  if ('const' in s) return new Set([kindOf(s.const)]);
  if (Array.isArray(s.enum)) return new Set(s.enum.map(kindOf));
  const t = s.type;
  if (t === undefined) return new Set(KINDS);
  const list = (Array.isArray(t) ? t : [t]) as string[];
  return new Set(list.includes('number') ? [...list, 'integer'] : list);
}

/** The literal values a schema is limited to, or undefined when it is not an enumeration. */
function literals(s: Schema): Set<string> | undefined {
  if (Array.isArray(s.anyOf)) {
    const all = (s.anyOf as Schema[]).map(literals);
    if (all.some((x) => x === undefined)) return undefined;
    return new Set(all.flatMap((x) => [...(x as Set<string>)]));
  }
  if ('const' in s) return new Set([JSON.stringify(s.const)]);
  if (Array.isArray(s.enum)) return new Set(s.enum.map((v) => JSON.stringify(v)));
  return undefined;
}

/** The object (properties) and array (items) member of a schema, looking through a nullable anyOf. */
function member(s: Schema, key: 'properties' | 'items'): Schema | undefined {
  if (s[key]) return s;
  for (const m of (s.anyOf ?? []) as Schema[]) if (m[key]) return m;
  return undefined;
}

const subset = (a: Set<string>, b: Set<string>) => [...a].every((x) => b.has(x));
const num = (v: unknown) => (typeof v === 'number' ? v : undefined);

/** Bounds of a schema (its own, or its non-null member's). */
function bounds(s: Schema): Schema {
  for (const m of (s.anyOf ?? []) as Schema[]) if (m.type !== 'null') return m;
  return s;
}

function narrowedInput(before: Schema, after: Schema): string | undefined {
  const kb = kinds(before);
  const ka = kinds(after);
  const lost = [...kb].filter((k) => !ka.has(k) && !(k === 'integer' && ka.has('number')));
  if (lost.length) return `no longer accepts ${lost.join(', ')}`;
  const lb = literals(before);
  const la = literals(after);
  if (la && (!lb || !subset(lb, la))) return `accepts fewer values (${[...(la ?? [])].join(', ')})`;
  const b = bounds(before);
  const a = bounds(after);
  for (const [k, tighter] of [
    ['minimum', (x: number, y: number) => y > x],
    ['exclusiveMinimum', (x: number, y: number) => y > x],
    ['minLength', (x: number, y: number) => y > x],
    ['minItems', (x: number, y: number) => y > x],
    ['maximum', (x: number, y: number) => y < x],
    ['exclusiveMaximum', (x: number, y: number) => y < x],
    ['maxLength', (x: number, y: number) => y < x],
    ['maxItems', (x: number, y: number) => y < x],
  ] as const) {
    const x = num(b[k]);
    const y = num(a[k]);
    if (y !== undefined && (x === undefined || tighter(x, y))) return `${k} ${x ?? 'none'} -> ${y}`;
  }
  if (a.pattern !== undefined && a.pattern !== b.pattern) return `pattern ${String(a.pattern)}`;
  if (a.format !== undefined && a.format !== b.format) return `format ${String(a.format)}`;
  if (a.additionalProperties === false && b.additionalProperties !== false) return 'unknown fields refused';
  return undefined;
}

function changedOutput(before: Schema, after: Schema): string | undefined {
  const kb = kinds(before);
  const gained = [...kinds(after)].filter((k) => !kb.has(k) && !(k === 'integer' && kb.has('number')));
  if (gained.length) return `may now be ${gained.join(', ')}`;
  return undefined;
}

/** The breaking changes from `before` to `after` (both surfaces), in a stable order. */
export function breakingChanges(before: ContractSurface, after: ContractSurface): BreakingChange[] {
  const out: BreakingChange[] = [];
  for (const [op, b] of Object.entries(before.operations)) {
    const a = after.operations[op];
    if (!a) {
      out.push({ kind: 'removed', operation: op, location: '*', detail: 'the operation is gone' });
      continue;
    }
    for (const [loc, s] of Object.entries(b.output)) {
      if (!a.output[loc])
        out.push({ kind: 'removed', operation: op, location: loc, detail: 'no longer sent' });
      else walk(op, loc, s, a.output[loc] as Schema, 'output', out);
    }
    for (const [loc, s] of Object.entries(a.input)) {
      const old = b.input[loc];
      if (!old) {
        if (Array.isArray(s.required) && s.required.length)
          out.push({ kind: 'required', operation: op, location: loc, detail: 'a new required input' });
      } else walk(op, loc, old, s, 'input', out);
    }
  }
  return out.sort((x, y) =>
    `${x.operation} ${x.location} ${x.kind}`.localeCompare(`${y.operation} ${y.location} ${y.kind}`),
  );
}

function walk(op: string, loc: string, b: Schema, a: Schema, io: 'input' | 'output', out: BreakingChange[]) {
  const why = io === 'input' ? narrowedInput(b, a) : changedOutput(b, a);
  if (why) out.push({ kind: 'narrowed', operation: op, location: loc, detail: why });
  const ob = member(b, 'properties');
  const oa = member(a, 'properties');
  if (ob && oa) {
    const pb = (ob.properties ?? {}) as Record<string, Schema>;
    const pa = (oa.properties ?? {}) as Record<string, Schema>;
    const rb = new Set((ob.required ?? []) as string[]);
    const ra = new Set((oa.required ?? []) as string[]);
    for (const [name, s] of Object.entries(pb)) {
      const at = `${loc}.${name}`;
      if (!pa[name]) {
        out.push({ kind: 'removed', operation: op, location: at, detail: 'the field is gone' });
        continue;
      }
      if (io === 'output' && rb.has(name) && !ra.has(name))
        out.push({ kind: 'removed', operation: op, location: at, detail: 'no longer always present' });
      walk(op, at, s, pa[name] as Schema, io, out);
    }
    if (io === 'input')
      for (const name of ra)
        if (!rb.has(name))
          out.push({ kind: 'required', operation: op, location: `${loc}.${name}`, detail: 'now required' });
  }
  const ib = member(b, 'items');
  const ia = member(a, 'items');
  if (ib && ia) walk(op, `${loc}[]`, ib.items as Schema, ia.items as Schema, io, out);
}

// ------------------------------------------------------------------------------------ the ADR markers

/** `breaking: <operation> <location>` lines of the ADRs (location `*`: the whole operation). */
export function recordedBreaks(adrs: readonly string[]): { operation: string; location: string }[] {
  const out: { operation: string; location: string }[] = [];
  for (const text of adrs)
    for (const m of text.matchAll(/^\s*(?:[-*]\s*)?`?breaking:\s+(\S+)\s+(\S+?)`?\s*$/gm))
      out.push({ operation: m[1] as string, location: m[2] as string });
  return out;
}

/** The changes no marker records: a marker covers its location and everything below it. */
export function unrecorded(
  changes: readonly BreakingChange[],
  markers: readonly { operation: string; location: string }[],
): BreakingChange[] {
  return changes.filter(
    (c) =>
      !markers.some(
        (m) =>
          m.operation === c.operation &&
          (m.location === '*' ||
            c.location === m.location ||
            c.location.startsWith(`${m.location}.`) ||
            c.location.startsWith(`${m.location}[]`)),
      ),
  );
}
