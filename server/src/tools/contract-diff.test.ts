// The breaking-change check (contract-diff.ts, ADR 0037) catches each kind it promises: a removed answer
// field, a narrowed input type, a new required input; it lets additive changes through, and an ADR line
// `breaking: <operation> <location>` accepts exactly the change it names.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { ApiRoute, RouteDef } from '../common/http';
import { breakingChanges, contractSurface, recordedBreaks, unrecorded } from './contract-diff';

const route = (request: z.ZodType, response: z.ZodType): RouteDef =>
  ({
    method: 'post',
    path: '/v1/things',
    auth: 'api_key',
    scope: null,
    summary: 'a thing',
    contract: {
      operationId: 'createThing',
      request,
      response: { status: 201, description: 'thing', schema: response },
    },
    answer: async () => ({ status: 201 }),
  }) satisfies ApiRoute;

const request = z.object({
  name: z.string().max(100),
  size: z.number().int().min(1).optional(),
  kind: z.enum(['a', 'b']).optional(),
});
const response = z.object({
  id: z.string(),
  name: z.string(),
  tags: z.array(z.object({ label: z.string() })),
});
const event = z.object({
  event: z.literal('thing.made'),
  data: z.object({ id: z.string(), at: z.string() }),
});

const surface = (req: z.ZodType = request, res: z.ZodType = response, ev: z.ZodType = event) =>
  contractSurface([route(req, res)], { 'thing.made': ev });

const changes = (after: ReturnType<typeof surface>) =>
  breakingChanges(surface(), after).map((c) => `${c.kind} ${c.operation} ${c.location}`);

describe('breaking changes', () => {
  it('finds none between equal contracts, nor for additive changes', () => {
    expect(changes(surface())).toEqual([]);
    const wider = surface(
      request.extend({
        note: z.string().optional(),
        size: z.number().optional(),
        kind: z.enum(['a', 'b', 'c']).optional(),
      }),
      response.extend({ created: z.string() }),
      z.object({
        event: z.literal('thing.made'),
        data: z.object({ id: z.string(), at: z.string(), by: z.string() }),
      }),
    );
    expect(changes(wider)).toEqual([]);
  });

  it('catches a removed field of an answer or an event, and one that is no longer always present', () => {
    expect(changes(surface(request, response.omit({ name: true })))).toEqual([
      'removed createThing response.name',
    ]);
    expect(
      changes(
        surface(request, response.extend({ tags: z.array(z.object({ label: z.string().optional() })) })),
      ),
    ).toEqual(['removed createThing response.tags[].label']);
    expect(
      changes(
        surface(
          request,
          response,
          z.object({ event: z.literal('thing.made'), data: z.object({ id: z.string() }) }),
        ),
      ),
    ).toEqual(['removed event:thing.made payload.data.at']);
  });

  it('catches a narrowed input type: a type, an enum value, a bound, a pattern', () => {
    expect(changes(surface(request.extend({ size: z.string().optional() })))).toEqual([
      'narrowed createThing request.size',
    ]);
    expect(changes(surface(request.extend({ kind: z.enum(['a']).optional() })))).toEqual([
      'narrowed createThing request.kind',
    ]);
    expect(changes(surface(request.extend({ name: z.string().max(50) })))).toEqual([
      'narrowed createThing request.name',
    ]);
    expect(
      changes(
        surface(
          request.extend({
            name: z
              .string()
              .max(100)
              .regex(/^[a-z]+$/),
          }),
        ),
      ),
    ).toEqual(['narrowed createThing request.name']);
    // an answer field that may now carry a type a client never saw
    expect(changes(surface(request, response.extend({ id: z.string().nullable() })))).toEqual([
      'narrowed createThing response.id',
    ]);
  });

  it('catches a new required input, and an optional input made required', () => {
    expect(changes(surface(request.extend({ owner: z.string() })))).toEqual([
      'required createThing request.owner',
    ]);
    expect(changes(surface(request.extend({ size: z.number().int().min(1) })))).toEqual([
      'required createThing request.size',
    ]);
  });

  it('accepts a breaking change only where an ADR records it', () => {
    const found = breakingChanges(
      surface(),
      surface(request.extend({ owner: z.string() }), response.omit({ name: true })),
    );
    const markers = recordedBreaks([
      '# ADR\n\nWe drop the name.\n\nbreaking: createThing response.name\n',
      'breaking: otherOperation request.owner\n',
    ]);
    expect(markers).toEqual([
      { operation: 'createThing', location: 'response.name' },
      { operation: 'otherOperation', location: 'request.owner' },
    ]);
    expect(unrecorded(found, markers).map((c) => c.location)).toEqual(['request.owner']);
    expect(unrecorded(found, recordedBreaks(['- `breaking: createThing *`']))).toEqual([]);
  });
});
