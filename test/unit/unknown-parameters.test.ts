// Every `/v1` JSON request body in the generated OpenAPI contract refuses unknown fields
// (`additionalProperties: false`, ADR 0051), and every `/v1` POST lists `validation_failed`: a new route whose
// zod request schema is not strict fails here before an integrator's typo is silently dropped.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

type Json = Record<string, any>; // a JSON document read from disk

const spec = JSON.parse(readFileSync(new URL('../../schema/openapi.v1.json', import.meta.url), 'utf8')) as Json;

const resolve = (schema: Json): Json => {
  const ref = schema.$ref as string | undefined;
  if (!ref) return schema;
  const name = ref.split('/').pop() as string;
  return spec.components.schemas[name] as Json;
};

const posts = Object.entries(spec.paths as Json)
  .filter(([p]) => p.startsWith('/v1/'))
  .flatMap(([p, ops]) => (ops.post ? [[p, ops.post as Json] as const] : []));

describe('unknown parameters in the /v1 contract', () => {
  it('has POST routes to check', () => {
    expect(posts.map(([p]) => p)).toContain('/v1/sessions');
  });
  it.each(posts)('%s: its JSON body admits no unknown field; validation_failed is listed', (_p, op) => {
    const json = op.requestBody?.content?.['application/json']?.schema as Json | undefined;
    if (json) expect(resolve(json).additionalProperties).toBe(false);
    expect(JSON.stringify(op.responses)).toContain('validation_failed');
  });
});
