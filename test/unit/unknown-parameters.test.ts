// Every `/v1` JSON request body in the generated OpenAPI contract refuses unknown fields
// (`additionalProperties: false`, ADR 0051), and every `/v1` POST lists `validation_failed`: a new route whose
// zod request schema is not strict fails here before an integrator's typo is silently dropped.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

interface Schema {
  $ref?: string;
  additionalProperties?: unknown;
}
interface Operation {
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: unknown;
}
interface Spec {
  paths: Record<string, { post?: Operation }>;
  components: { schemas: Record<string, Schema> };
}

const spec = JSON.parse(
  readFileSync(new URL('../../schema/openapi.v1.json', import.meta.url), 'utf8'),
) as Spec;

const resolve = (schema: Schema): Schema | undefined => {
  if (!schema.$ref) return schema;
  return spec.components.schemas[schema.$ref.split('/').pop() as string];
};

const posts = Object.entries(spec.paths)
  .filter(([p]) => p.startsWith('/v1/'))
  .flatMap(([p, ops]) => (ops.post ? [[p, ops.post] as const] : []));

describe('unknown parameters in the /v1 contract', () => {
  it('has POST routes to check', () => {
    expect(posts.map(([p]) => p)).toContain('/v1/sessions');
  });
  it.each(posts)('%s: its JSON body admits no unknown field; validation_failed is listed', (_p, op) => {
    const json = op.requestBody?.content?.['application/json']?.schema;
    if (json) expect(resolve(json)?.additionalProperties).toBe(false);
    expect(JSON.stringify(op.responses)).toContain('validation_failed');
  });
});
