// The fuzz suite's GraphQL requests (test/api/fuzz.test.ts, issue 7): a valid operation per Query and Mutation
// field of the introspected schema (JSON and multipart), then mutated like the REST requests.
import {
  GraphQLEnumType,
  type GraphQLField,
  GraphQLInputObjectType,
  type GraphQLInputType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLOutputType,
  GraphQLScalarType,
  getNamedType,
  isLeafType,
} from 'graphql';
import {
  type Fixture,
  type FuzzRequest,
  multipartBody,
  mutate,
  type Rng,
  randomJson,
  UNICODE,
} from './fuzz-requests';

/** A GraphQL literal-free variable value of the given input type (valid-ish, sometimes wrong). */
export function gqlValue(rng: Rng, type: GraphQLInputType, fx: Fixture, depth = 0): unknown {
  if (type instanceof GraphQLNonNull) return gqlValue(rng, type.ofType, fx, depth);
  if (rng.chance(0.05)) return randomJson(rng, 3);
  if (type instanceof GraphQLList)
    return depth > 3
      ? []
      : Array.from({ length: rng.int(3) }, () => gqlValue(rng, type.ofType, fx, depth + 1));
  if (type instanceof GraphQLEnumType) return rng.pick(type.getValues()).name;
  if (type instanceof GraphQLInputObjectType) {
    const o: Record<string, unknown> = {};
    for (const f of Object.values(type.getFields()))
      if (f.type instanceof GraphQLNonNull || rng.chance(0.6))
        o[f.name] = gqlValue(rng, f.type, fx, depth + 1);
    return o;
  }
  if (type instanceof GraphQLScalarType) {
    switch (type.name) {
      case 'ID':
        return rng.pick([fx.sessionId, fx.workflowId, fx.signWorkflowId, 'wf_nope', 'sess_nope', '', '%ZZ']);
      case 'Int':
        return rng.pick([0, 1, 3, -1, 2 ** 31, 600, 86_400]);
      case 'Float':
        return rng.pick([0, 1.5, -1, 1e308]);
      case 'Boolean':
        return rng.chance(0.5);
      case 'String':
        return rng.pick(['identify', 'http://127.0.0.1:1/hook', 'given_name', ...UNICODE.slice(0, 8)]);
      case 'Upload':
        return null; // filled by the multipart map
      default:
        return rng.pick(['2030-01-01T00:00:00.000Z', '{}', 'x', 1]);
    }
  }
  return null;
}

/** A selection set of the scalar fields of the type, two levels deep. */
export function selection(type: GraphQLOutputType, depth = 0): string {
  const named = getNamedType(type);
  if (isLeafType(named)) return '';
  if (!(named instanceof GraphQLObjectType) || depth > 2) return '{ __typename }';
  const fields = Object.values(named.getFields())
    .filter((f) => f.args.every((a) => !(a.type instanceof GraphQLNonNull)))
    .map((f) => `${f.name} ${selection(f.type, depth + 1)}`);
  return `{ __typename ${fields.join(' ')} }`;
}

export function gqlRequest(
  rng: Rng,
  op: { kind: 'query' | 'mutation'; field: GraphQLField<unknown, unknown> },
  fx: Fixture,
): FuzzRequest {
  const { field } = op;
  const varDefs = field.args.map((a) => `$${a.name}: ${a.type.toString()}`).join(', ');
  const args = field.args.map((a) => `${a.name}: $${a.name}`).join(', ');
  const query = `${op.kind} Fuzz${varDefs ? `(${varDefs})` : ''} { ${field.name}${args ? `(${args})` : ''} ${selection(field.type)} }`;
  const variables: Record<string, unknown> = {};
  for (const a of field.args) variables[a.name] = gqlValue(rng, a.type, fx);
  const uploadArgs = field.args.filter((a) => getNamedType(a.type).name === 'Upload');
  const headers: Record<string, string> = { Authorization: `Bearer ${fx.apiKey}` };
  let body: string;
  let valid: unknown = { query, variables };
  if (uploadArgs.length > 0 && rng.chance(0.6)) {
    // GraphQL multipart request: operations, map, files
    const files = 1 + rng.int(2);
    for (const a of uploadArgs) variables[a.name] = Array.from({ length: files }, () => null);
    const map: Record<string, string[]> = {};
    for (let i = 0; i < files; i++) map[String(i)] = [`variables.${uploadArgs[0]?.name}.${i}`];
    valid = { query, variables };
    headers['Content-Type'] = 'multipart/form-data; boundary=fuzzB';
    headers['apollo-require-preflight'] = 'true';
    const ops = rng.chance(0.15) ? '{"query":' : JSON.stringify(valid);
    body = multipartBody(
      rng,
      { operations: ops, map: rng.chance(0.1) ? '[1]' : JSON.stringify(map) },
      Array.from({ length: files }, (_, i) => ({ name: String(i) })),
    );
  } else {
    headers['Content-Type'] = 'application/json';
    body = JSON.stringify(valid);
  }
  const req: FuzzRequest = {
    target: `graphql ${op.kind} ${field.name}`,
    method: 'POST',
    path: '/graphql',
    headers,
    body,
  };
  if (rng.chance(0.15)) return req;
  // GraphQL-specific mutations besides the generic ones
  if (rng.chance(0.3)) {
    const q = rng.pick([
      `${query} ${query}`,
      `{ ${'a: __typename '.repeat(2000)} }`,
      `query { ${'session(id: "x") { '.repeat(50)}${'}'.repeat(50)} }`,
      `${op.kind} { ${field.name} }`,
      `fragment A on Query { ...A } query { ...A }`,
      query.slice(0, rng.int(query.length)),
    ]);
    return {
      ...req,
      headers: { ...headers, 'Content-Type': 'application/json' },
      body: JSON.stringify({ query: q, variables: rng.chance(0.5) ? variables : randomJson(rng) }),
    };
  }
  return mutate(rng, req, valid);
}
