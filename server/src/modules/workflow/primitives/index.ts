// The primitive registry (ADR 0054): one PrimitiveSpec per primitive, and the lists other modules used to
// keep by hand, derived from it. A primitive missing here is a compile error (the record is keyed by
// PRIMITIVES); test/unit/primitive-registry.test.ts checks each entry is complete and that the lists outside
// the server's types (hosted page copy, webhook schemas, the GraphQL enum) name exactly these primitives.
import { ageVerify } from './age-verify';
import { attestation } from './attestation';
import { identify } from './identify';
import { sign } from './sign';
import type { PrimitiveSpec } from './spec';
import { PRIMITIVES, type Primitive } from './step';

export const PRIMITIVE_SPECS: { readonly [P in Primitive]: PrimitiveSpec<P> } = {
  identify,
  age_verify: ageVerify,
  sign,
  attestation,
};

export type { PrimitiveSpec, StepDocument, StepRequestContext } from './spec';
export { PRIMITIVES, type Primitive };

export const specOf = <P extends Primitive>(p: P): PrimitiveSpec<P> => PRIMITIVE_SPECS[p] as PrimitiveSpec<P>;

/** `{ identify: f('identify'), … }` for every primitive. */
export const perPrimitive = <T>(f: (p: Primitive) => T): Record<Primitive, T> =>
  Object.fromEntries(PRIMITIVES.map((p) => [p, f(p)])) as Record<Primitive, T>;

/** A route's capability set (credential_route.primitives) as the primitives it holds. */
export const primitivesOfMask = (mask: number): Primitive[] =>
  PRIMITIVES.filter((p) => (mask & PRIMITIVE_SPECS[p].bit) !== 0);

/** The capability set of a list of primitives. */
export const maskOf = (primitives: readonly Primitive[]): number =>
  primitives.reduce((m, p) => m | PRIMITIVE_SPECS[p].bit, 0);
