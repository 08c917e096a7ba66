// Shared GraphQL scalars and enums. JSON carries free-form business data (session metadata, primitive results) exactly
// as the REST API carries it; literals in queries are accepted too.
import { GraphQLScalarType, Kind, type ValueNode } from 'graphql';
import { registerEnumType } from 'type-graphql';

function literalValue(node: ValueNode, variables: Record<string, unknown> | null | undefined): unknown {
  switch (node.kind) {
    case Kind.STRING:
    case Kind.BOOLEAN:
      return node.value;
    case Kind.INT:
    case Kind.FLOAT:
      return Number(node.value);
    case Kind.NULL:
      return null;
    case Kind.LIST:
      return node.values.map((v) => literalValue(v, variables));
    case Kind.OBJECT:
      return Object.fromEntries(node.fields.map((f) => [f.name.value, literalValue(f.value, variables)]));
    case Kind.VARIABLE:
      return variables?.[node.name.value];
    default:
      return undefined;
  }
}

export const JSONScalar = new GraphQLScalarType({
  name: 'JSON',
  description: 'Any JSON value (object, array, string, number, boolean or null).',
  serialize: (v) => v,
  parseValue: (v) => v,
  parseLiteral: (node, variables) => literalValue(node, variables),
});

/** The environment a session or route belongs to (shared by the support views and the signer's session). */
export enum EnvironmentGql {
  sandbox = 'sandbox',
  production = 'production',
}
registerEnumType(EnvironmentGql, { name: 'Environment' });
