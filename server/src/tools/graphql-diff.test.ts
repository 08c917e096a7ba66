// The GraphQL breaking-change check (graphql-diff.ts, ADR 0057): a removed field, enum value or argument, a
// changed type and a new required argument are caught and named where an ADR marker can accept them; additive
// changes pass; a marker `breaking: graphql <location>` accepts exactly what it names.
import { buildSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { recordedBreaks, unrecorded } from './contract-diff';
import { graphqlBreakingChanges, locationOf } from './graphql-diff';

const released = `
  enum Status { open closed }
  type Thing { id: ID! name: String! status: Status! size: Int }
  input ThingInput { name: String! }
  type Query { thing(id: ID!): Thing things(first: Int): [Thing!]! }
`;
const changes = (sdl: string) => graphqlBreakingChanges(released, buildSchema(sdl));

describe('GraphQL breaking changes against the released schema', () => {
  it('lets additive changes through: a new field, type, enum value or optional argument', () => {
    expect(
      changes(`
        enum Status { open closed paused }
        type Thing { id: ID! name: String! status: Status! size: Int ended: Boolean! }
        type Other { id: ID! }
        input ThingInput { name: String! note: String }
        type Query { thing(id: ID!, full: Boolean): Thing things(first: Int): [Thing!]! other: Other }
      `),
    ).toEqual([]);
  });

  it('names each break by where it is', () => {
    const found = changes(`
      enum Status { open }
      type Thing { id: ID! status: Status! size: String }
      input ThingInput { name: String! tag: String! }
      type Query { thing(id: ID!, env: String!): Thing things: [Thing!]! }
    `);
    expect(found.map((c) => `${c.kind} ${c.operation} ${c.location}`).sort()).toEqual(
      [
        'removed graphql Status.closed',
        'removed graphql Thing.name',
        'narrowed graphql Thing.size',
        'required graphql ThingInput.tag',
        'required graphql Query.thing(env)',
        'removed graphql Query.things(first)',
        'removed graphql Int', // no field uses Int any more
      ].sort(),
    );
  });

  it('accepts exactly the breaks an ADR records', () => {
    const found = changes(`
      enum Status { open }
      type Thing { id: ID! name: String! status: Status! }
      input ThingInput { name: String! }
      type Query { thing(id: ID!): Thing things(first: Int): [Thing!]! }
    `);
    expect(found.map((c) => c.location).sort()).toEqual(['Status.closed', 'Thing.size']);
    const markers = recordedBreaks(['Why.\n\nbreaking: graphql Thing.size\n']);
    expect(unrecorded(found, markers).map((c) => c.location)).toEqual(['Status.closed']);
    expect(unrecorded(found, recordedBreaks(['breaking: graphql *']))).toEqual([]);
    // a REST marker of the same location does not accept a GraphQL change
    expect(unrecorded(found, recordedBreaks(['breaking: getThing Thing.size']))).toHaveLength(2);
  });

  it('reads the location out of every description form', () => {
    expect(locationOf('Thing was removed.')).toBe('Thing');
    expect(locationOf('Thing.size changed type from Int to String.')).toBe('Thing.size');
    expect(locationOf('Query.thing arg id has changed type from ID! to String!.')).toBe('Query.thing(id)');
    expect(locationOf('Union no longer implements interface Node.')).toBe('Union');
    expect(locationOf('Standard scalar Int was removed because it is not referenced anymore.')).toBe('Int');
  });
});
