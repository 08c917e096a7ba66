// Owns the breaking-change rule of the GraphQL schema (ADR 0057), beside contract-diff.ts for /v1, /t and the
// webhooks: the schema the code builds is compared with schema/schema.released.graphql, the schema as last
// snapshotted by `pnpm contract:snapshot`, with graphql-js's findBreakingChanges (a removed type, field, enum
// value or argument, a changed field type, a new required argument or input field...). A breaking change is
// accepted only when an ADR records it with a line `breaking: graphql <location>`, where <location> is the
// type, `Type.field`, `Type.field(arg)` or `Enum.VALUE` it names (`breaking: graphql *` accepts every one).
import {
  buildSchema,
  findBreakingChanges,
  type BreakingChange as GqlBreakingChange,
  type GraphQLSchema,
} from 'graphql';
import type { BreakingChange } from './contract-diff';

/** The operation name of every GraphQL change, for the ADR marker (`breaking: graphql <location>`). */
export const GRAPHQL_OPERATION = 'graphql';

export const RELEASED_HEADER =
  '# The GraphQL schema as last snapshotted (`pnpm contract:snapshot`): `pnpm contract:check` fails on a\n' +
  '# breaking change against it that no ADR records (`breaking: graphql <location>`). Do not edit.\n\n';

const LOCATIONS: [RegExp, (m: RegExpMatchArray) => string][] = [
  [/^(\w+) was removed from (?:enum|union) type (\w+)\./, (m) => `${m[2]}.${m[1]}`],
  [/^Standard scalar (\w+) was removed/, (m) => `${m[1]}`],
  [/^A required (?:field|arg) (\w+) on input type (\w+) was added\./, (m) => `${m[2]}.${m[1]}`],
  [/^A required arg (\w+) on (\w+\.\w+) was added\./, (m) => `${m[2]}(${m[1]})`],
  [/^(\w+\.\w+) arg (\w+)/, (m) => `${m[1]}(${m[2]})`],
  [/^(\w+) no longer implements interface (\w+)\./, (m) => `${m[1]}`],
  [/^(\w+(?:\.\w+)?)\b/, (m) => `${m[1]}`],
];

/** Where a graphql-js breaking change is: the type, field, argument or enum value its description names. */
export function locationOf(description: string): string {
  for (const [re, at] of LOCATIONS) {
    const m = description.match(re);
    if (m) return at(m);
  }
  return description;
}

const kindOf = (c: GqlBreakingChange): BreakingChange['kind'] =>
  /ADDED$/.test(c.type) ? 'required' : /REMOVED/.test(c.type) ? 'removed' : 'narrowed';

/** The breaking changes from the released schema (SDL) to the schema the code builds. */
export function graphqlBreakingChanges(released: string, current: GraphQLSchema): BreakingChange[] {
  return findBreakingChanges(buildSchema(released), current).map((c) => ({
    kind: kindOf(c),
    operation: GRAPHQL_OPERATION,
    location: locationOf(c.description),
    detail: `${c.type}: ${c.description}`,
  }));
}
