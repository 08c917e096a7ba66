// Owns the shape and validation of workflow steps. A step runs one primitive; `gate_after` makes the session
// wait in awaiting_decision after the step until the business continues or stops it; `conditions` decide by
// themselves what follows a step's result (conditions.ts, ADR 0031).
import { AppError } from '../../common/errors';
import { validateConditions } from './conditions';
import { PRIMITIVE_SPECS, perPrimitive } from './primitives';
import {
  HOLDER_POLICIES,
  type HolderPolicy,
  PRIMITIVES,
  type Primitive,
  type WorkflowStep,
} from './primitives/step';

export { MAX_ATTESTATION_WORDS } from './primitives/attestation';
export {
  HOLDER_POLICIES,
  type HolderPolicy,
  IDENTIFY_CLAIMS,
  type IdentifyClaim,
  PRIMITIVES,
  type Primitive,
  type WorkflowStep,
} from './primitives/step';

export const MAX_STEPS = 10;

export const MAX_STEP_ROUTES = 20;

/** A step's holder policy with the default applied. */
export const holderPolicyOf = (step: WorkflowStep): HolderPolicy => step.holder ?? 'same_as_first';

/** Per-step security window in minutes (PrimitiveSpec.windowMinutes; README Limits). */
export const STEP_WINDOW_MINUTES: Readonly<Record<Primitive, number>> = perPrimitive(
  (p) => PRIMITIVE_SPECS[p].windowMinutes,
);

/** Validates and normalizes a step list. `forPublish` adds the rules that only bind published revisions. */
export function validateSteps(input: unknown, forPublish: boolean): WorkflowStep[] {
  if (!Array.isArray(input))
    throw new AppError('workflow_invalid', 'steps must be a list.', { param: 'steps' });
  if (input.length > MAX_STEPS)
    throw new AppError('workflow_invalid', `At most ${MAX_STEPS} steps.`, { param: 'steps' });
  if (forPublish && input.length === 0)
    throw new AppError('workflow_invalid', 'A published workflow needs at least one step.', {
      param: 'steps',
    });
  return input.map((raw, i): WorkflowStep => {
    const s = raw as Partial<WorkflowStep>;
    // 1-based like the dashboard's "Step 3"; param names the field (steps[2].terms), 0-based like the input
    const bad = (detail: string, field?: string) =>
      new AppError('workflow_invalid', `Step ${i + 1}: ${detail}`, {
        param: field ? `steps[${i}].${field}` : `steps[${i}]`,
      });
    if (!s || !PRIMITIVES.includes(s.primitive as Primitive))
      throw bad(`primitive must be one of ${PRIMITIVES.join(', ')}.`, 'primitive');
    const step: WorkflowStep = { primitive: s.primitive as Primitive };
    if (s.gate_after) step.gate_after = true;
    if (s.holder !== undefined && s.holder !== null) {
      if (!HOLDER_POLICIES.includes(s.holder as HolderPolicy))
        throw bad(`holder must be one of ${HOLDER_POLICIES.join(', ')}.`, 'holder');
      if (s.holder === 'any' && i === 0)
        throw bad(
          'the first step is the holder every other step is bound to; it cannot be holder "any".',
          'holder',
        );
      // the default is not stored, so revisions published before the field existed read the same
      if (s.holder === 'any') step.holder = 'any';
    }
    if (s.routes !== undefined && s.routes !== null) {
      if (
        !Array.isArray(s.routes) ||
        s.routes.length === 0 ||
        s.routes.length > MAX_STEP_ROUTES ||
        s.routes.some((r) => typeof r !== 'string' || !/^rte_[a-z0-9_]{1,36}$/.test(r))
      )
        throw bad(`routes must be 1-${MAX_STEP_ROUTES} credential route ids from the catalog.`, 'routes');
      step.routes = [...new Set(s.routes)];
    }
    Object.assign(step, PRIMITIVE_SPECS[step.primitive].validate(s, { forPublish, bad }));
    const conditions = validateConditions(s.conditions, step, i, input.length);
    if (conditions.length > 0) step.conditions = conditions;
    return step;
  });
}
