// Owns the signer page's fixed GraphQL reads, precompiled (issue 27, ADR 0062): the page sends one document
// (hosted-web/src/graphql/signer.graphql) on every read, so the `signerSession` operation it names is parsed and
// validated against the schema once per document text, and compiled into a shaping function that turns the
// read's answer (signer.view.ts's SignerSession) into exactly what graphql-js would answer for that selection:
// response keys in selection order, leaves through their type's own serialize, non-null and list checks. No
// TypeGraphQL resolution, no Apollo request pipeline per read. Only selections the compiler can answer the way
// graphql-js would are compiled: one root field `signerSession` with `sessionId` as its only argument, object
// fields with no resolver of their own (plain properties), no directives, no arguments below the root; any
// other document (or a shaping error) is left to the general path, Apollo, which answers it as before.
import {
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLSchema,
  getNamedType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  parse,
  type SelectionSetNode,
  validate,
} from 'graphql';

type Shape = (value: unknown) => unknown;

/** A compiled read: where the session id comes from, and how the answer is shaped. */
export interface PageOperation {
  /** The response key of the root field (its alias, else `signerSession`). */
  key: string;
  /** The session id of a request: the `sessionId` argument, from its variable or literal. */
  sessionIdOf(variables: unknown): string | undefined;
  /** The GraphQL response body (`{"data":{…}}`, as graphql-js and Apollo answer it) for `view`. */
  answer(view: unknown): { data: Record<string, unknown> };
}

/** Thrown when a value does not fit the schema: the general path answers instead (its own error). */
class ShapeError extends Error {}

const ROOT_FIELD = 'signerSession';

/** The selection of `set` on `type`, flattened (fragments and inline fragments of the same type), in order. */
function collect(
  type: GraphQLObjectType,
  set: SelectionSetNode,
  fragments: Map<string, FragmentDefinitionNode>,
  out: Map<string, FieldNode[]>,
): boolean {
  for (const sel of set.selections) {
    if (sel.directives?.length) return false;
    if (sel.kind === Kind.FIELD) {
      const key = sel.alias?.value ?? sel.name.value;
      const list = out.get(key);
      if (list) list.push(sel);
      else out.set(key, [sel]);
    } else {
      const cond = sel.kind === Kind.INLINE_FRAGMENT ? sel.typeCondition : undefined;
      const frag = sel.kind === Kind.FRAGMENT_SPREAD ? fragments.get(sel.name.value) : undefined;
      if (sel.kind === Kind.FRAGMENT_SPREAD && !frag) return false;
      if (frag?.directives?.length) return false;
      const on = cond ?? frag?.typeCondition;
      if (on && on.name.value !== type.name) return false;
      const inner = frag
        ? frag.selectionSet
        : sel.kind === Kind.INLINE_FRAGMENT
          ? sel.selectionSet
          : undefined;
      if (!inner || !collect(type, inner, fragments, out)) return false;
    }
  }
  return true;
}

/** The shaping function of `type` for the merged field nodes `nodes`, or null if not compilable. */
function compileType(
  type: GraphQLOutputType,
  nodes: FieldNode[],
  fragments: Map<string, FragmentDefinitionNode>,
  ownResolvers: ReadonlySet<unknown>,
): Shape | null {
  if (isNonNullType(type)) {
    const inner = compileType(type.ofType, nodes, fragments, ownResolvers);
    if (!inner) return null;
    return (v) => {
      if (v === null || v === undefined) throw new ShapeError('null for a non-null field');
      return inner(v);
    };
  }
  if (isListType(type)) {
    const inner = compileType(type.ofType, nodes, fragments, ownResolvers);
    if (!inner) return null;
    return (v) => {
      if (v === null || v === undefined) return null;
      if (!Array.isArray(v)) throw new ShapeError('not a list');
      return v.map(inner);
    };
  }
  if (isLeafType(type)) {
    if (nodes.some((n) => n.selectionSet)) return null;
    return (v) => (v === null || v === undefined ? null : type.serialize(v));
  }
  if (!isObjectType(type)) return null; // interfaces and unions: not on the page's reads
  const fields = new Map<string, FieldNode[]>();
  for (const n of nodes) {
    if (!n.selectionSet || !collect(type, n.selectionSet, fragments, fields)) return null;
  }
  const plan: [string, string, Shape][] = [];
  const defs = type.getFields();
  for (const [key, fieldNodes] of fields) {
    const name = (fieldNodes[0] as FieldNode).name.value;
    if (fieldNodes.some((n) => n.name.value !== name || n.arguments?.length)) return null;
    if (name === '__typename') {
      const typename = type.name;
      plan.push([key, name, () => typename]);
      continue;
    }
    const def = defs[name] as GraphQLField<unknown, unknown> | undefined;
    // a field with a resolver of its own (TypeGraphQL field resolver or middleware): the general path
    if (!def || ownResolvers.has(def) || def.args.length) return null;
    const shape = compileType(def.type, fieldNodes, fragments, ownResolvers);
    if (!shape) return null;
    plan.push([key, name, shape]);
  }
  return (v) => {
    if (v === null || v === undefined) return null;
    const src = v as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const [key, name, shape] of plan) out[key] = shape(src[name]);
    return out;
  };
}

/**
 * The fields of `schema` that have a resolver of their own, taken before Apollo starts: its plugins' field
 * instrumentation then wraps every field's `resolve` in place (a wrapper that calls the original, or graphql's
 * default property read when there is none), so only this snapshot tells a plain property from a resolver.
 */
export function fieldsWithResolvers(schema: GraphQLSchema): ReadonlySet<unknown> {
  const out = new Set<unknown>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const f of Object.values(type.getFields())) if (f.resolve) out.add(f);
  }
  return out;
}

/** Compiles `operationName` of `text` (null: not one of the page's fixed reads, or not valid). */
export function compilePageOperation(
  schema: GraphQLSchema,
  text: string,
  operationName: string | undefined,
  ownResolvers: ReadonlySet<unknown> = fieldsWithResolvers(schema),
): PageOperation | null {
  let doc: ReturnType<typeof parse>;
  try {
    doc = parse(text, { noLocation: true });
  } catch {
    return null;
  }
  if (validate(schema, doc).length > 0) return null;
  const operations = doc.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  );
  const op =
    operationName === undefined
      ? operations.length === 1
        ? operations[0]
        : undefined
      : operations.find((o) => o.name?.value === operationName);
  if (op?.operation !== 'query' || op.directives?.length) return null;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of doc.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const [root, ...rest] = op.selectionSet.selections;
  if (!root || rest.length > 0 || root.kind !== Kind.FIELD || root.name.value !== ROOT_FIELD) return null;
  if (root.directives?.length || root.arguments?.length !== 1) return null;
  const arg = root.arguments[0];
  if (arg?.name.value !== 'sessionId') return null;
  const value = arg.value;
  let sessionIdOf: PageOperation['sessionIdOf'];
  if (value.kind === Kind.VARIABLE) {
    const name = value.name.value;
    const decl = op.variableDefinitions?.find((v) => v.variable.name.value === name);
    // the schema's ID! argument, declared as a non-null variable without a default (validated above)
    if (!decl || decl.defaultValue || decl.type.kind !== Kind.NON_NULL_TYPE) return null;
    sessionIdOf = (variables) => {
      const v = (variables as Record<string, unknown> | null | undefined)?.[name];
      return typeof v === 'string' ? v : undefined;
    };
  } else if (value.kind === Kind.STRING) {
    const literal = value.value;
    sessionIdOf = () => literal;
  } else return null;
  if ((op.variableDefinitions?.length ?? 0) > (value.kind === Kind.VARIABLE ? 1 : 0)) return null;
  const field = schema.getQueryType()?.getFields()[ROOT_FIELD];
  if (!field || getNamedType(field.type).name !== 'SignerSession') return null;
  const shape = compileType(field.type, [root], fragments, ownResolvers);
  if (!shape) return null;
  const key = root.alias?.value ?? ROOT_FIELD;
  return { key, sessionIdOf, answer: (view) => ({ data: { [key]: shape(view) } }) };
}

/**
 * The compiled reads of one schema, by document text and operation name (the page sends one fixed text; a
 * text that does not compile is remembered as such). Only texts that name `signerSession` are considered.
 * Bounded in texts, operations per text and text length.
 */
export class PageOperations {
  /** By document text, then operation name ('' for none). */
  private readonly compiled = new Map<string, Map<string, PageOperation | null>>();
  private static readonly MAX = 64;
  /** The page's document is about 2.5 KB; a larger text is never one of its reads. */
  private static readonly MAX_TEXT = 16_384;
  private schema?: GraphQLSchema;
  private ownResolvers: ReadonlySet<unknown> = new Set();

  /** The served schema, before Apollo instruments it (fieldsWithResolvers). */
  use(schema: GraphQLSchema): void {
    this.schema = schema;
    this.ownResolvers = fieldsWithResolvers(schema);
    this.compiled.clear();
  }

  /** The compiled read of a GraphQL request body, or null when the general path must answer it. */
  of(body: unknown): { op: PageOperation; variables: unknown } | null {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
    const { query, operationName, variables, extensions, ...other } = body as Record<string, unknown>;
    if (typeof query !== 'string' || Object.keys(other).length > 0 || extensions !== undefined) return null;
    if (operationName !== undefined && operationName !== null && typeof operationName !== 'string')
      return null;
    if (
      variables !== undefined &&
      variables !== null &&
      (typeof variables !== 'object' || Array.isArray(variables))
    )
      return null;
    const schema = this.schema;
    // every other GraphQL request (the dashboard's, an API client's) is not looked at any further: no second
    // parse beside Apollo's for documents that cannot be the page's read
    if (!schema || query.length > PageOperations.MAX_TEXT || !query.includes(ROOT_FIELD)) return null;
    const name = operationName ?? '';
    // the text itself is the key: the engine hashes a string key once per lookup, cheaper than a digest of it
    let byName = this.compiled.get(query);
    if (!byName) {
      if (this.compiled.size >= PageOperations.MAX)
        this.compiled.delete(this.compiled.keys().next().value as string);
      byName = new Map();
      this.compiled.set(query, byName);
    }
    let op = byName.get(name);
    if (op === undefined) {
      if (byName.size >= PageOperations.MAX) return null;
      op = compilePageOperation(schema, query, operationName ?? undefined, this.ownResolvers);
      byName.set(name, op);
    }
    return op ? { op, variables } : null;
  }
}
