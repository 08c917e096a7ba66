// Owns the contract of the session routes (ADR 0037): the zod request, response and webhook event schemas
// of /v1/sessions, the create input's rules (`parseCreateInput`, used by REST, GraphQL and multipart), and
// the types inferred from them. The routes (session.rest.ts) carry these schemas; the OpenAPI and webhook
// generators (tools/openapi.ts) and the contract tests read them from the routes.
import { z } from 'zod';
import { sessionId, timestamp } from '../../common/contract-atoms';
import { AppError } from '../../common/errors';
import { unknownParameter } from '../../common/unknown-parameter';
import { RETURN_LIMITS } from '../branding/branding.service';
import { ALLOWED_CONTENT_TYPES } from '../document/document.service';
import { UPLOAD_LIMITS } from '../document/multipart';
import { ConditionMatchSchema } from '../workflow/conditions.contract';
import { PRIMITIVES } from '../workflow/workflow.steps';
import { SESSION_STATUSES, TERMINAL_STATUSES, type TerminalStatus } from './session.machine';

/** The spec's limits of a create (section 8) and of the Idempotency-Key. */
export const SESSION_LIMITS = {
  expiresInDefault: 3600,
  expiresInMin: 60,
  expiresInMax: 86_400,
  metadataMaxBytes: 16 * 1024,
  idempotencyKeyMaxLength: 255,
} as const;

const expiresInRange = `expires_in must be an integer number of seconds from ${SESSION_LIMITS.expiresInMin} to ${SESSION_LIMITS.expiresInMax}.`;
const returnUrlShape = `return_url must be an absolute URL of at most ${RETURN_LIMITS.urlMaxLength} characters.`;

/**
 * The create input (JSON; a multipart create's fields are converted to it first): the one place its rules
 * live. `parseCreateInput` applies them with the stable error codes; the OpenAPI request schema is this object.
 */
export const CreateSessionRequestSchema = z
  .object({
    workflow_id: z
      .string({ error: 'workflow_id is required.' })
      .min(1, { error: 'workflow_id is required.' })
      .describe('A workflow with a published revision.'),
    metadata: z
      .record(z.string(), z.unknown(), { error: 'metadata must be a JSON object.' })
      .refine((m) => Buffer.byteLength(JSON.stringify(m)) <= SESSION_LIMITS.metadataMaxBytes, {
        error: `metadata is limited to ${SESSION_LIMITS.metadataMaxBytes} bytes of JSON.`,
      })
      .nullable()
      .optional()
      .describe(`A JSON object of at most ${SESSION_LIMITS.metadataMaxBytes} bytes, returned as given.`),
    expires_in: z
      .number({ error: expiresInRange })
      .int({ error: expiresInRange })
      .min(SESSION_LIMITS.expiresInMin, { error: expiresInRange })
      .max(SESSION_LIMITS.expiresInMax, { error: expiresInRange })
      .nullable()
      .optional()
      .describe(
        `Seconds until the session expires (spec section 8: ${SESSION_LIMITS.expiresInMin} s to 24 h; default ${SESSION_LIMITS.expiresInDefault}).`,
      ),
    return_url: z
      .string({ error: returnUrlShape })
      .max(RETURN_LIMITS.urlMaxLength, { error: returnUrlShape })
      .url({ protocol: /^https?$/, error: 'return_url must be an absolute http(s) URL.' })
      .nullable()
      .optional()
      .describe(
        'Where the hosted page offers the way back once the session ended (never carrying results). Its origin must be registered for the environment (GraphQL setReturnOrigins), else 400 return_url_not_allowed.',
      ),
  })
  // an unknown parameter (a misspelt `expires_in`, a `recipient_email` the spec does not have) is refused,
  // never silently dropped (issue 29, ADR 0051)
  .strict()
  .meta({ title: 'CreateSessionRequest' });

export type CreateSessionRequest = z.input<typeof CreateSessionRequestSchema>;

/** What a create receives before validation (a parsed JSON body, GraphQL input, or converted form fields). */
export type CreateSessionInput = { [K in keyof CreateSessionRequest]?: unknown };

/**
 * The create input's rules, once (REST, GraphQL and multipart): `validation_failed` with the field as
 * `param` and the first rule it breaks as the detail. An unknown field is refused the same way, named as
 * `param` (ADR 0051); `undefined` values (GraphQL's absent optional fields) are not fields.
 */
export function parseCreateInput(input: CreateSessionInput): {
  workflowId: string;
  metadata: Record<string, unknown> | null;
  expiresIn: number;
  returnUrl: string | null;
} {
  const r = CreateSessionRequestSchema.safeParse(input);
  if (!r.success) {
    const issue = r.error.issues[0];
    if (issue?.code === 'unrecognized_keys') throw unknownParameter(String(issue.keys[0]));
    const param = String(issue?.path[0] ?? 'body');
    throw new AppError('validation_failed', issue?.message ?? 'The session input is invalid.', { param });
  }
  return {
    workflowId: r.data.workflow_id,
    metadata: r.data.metadata ?? null,
    expiresIn: r.data.expires_in ?? SESSION_LIMITS.expiresInDefault,
    returnUrl: r.data.return_url ?? null,
  };
}

/** The same create request as multipart/form-data, required when the workflow has a sign step. */
export const CreateSessionMultipartSchema = z
  .object({
    workflow_id: z.string().min(1).describe('A workflow with a published revision.'),
    metadata: z.string().optional().describe('The metadata JSON object, as a JSON string.'),
    expires_in: z.string().regex(/^\d+$/).optional().describe('Seconds until the session expires.'),
    return_url: z
      .string()
      .max(2048)
      .optional()
      .describe('As in the JSON request: on a registered origin, else 400 return_url_not_allowed.'),
    file: z
      .array(z.string().meta({ format: 'binary' }))
      .min(1)
      .max(UPLOAD_LIMITS.maxFiles)
      .describe(
        `The documents of the sign step, in order, each with its content type (${Object.keys(ALLOWED_CONTENT_TYPES).join(', ')}); ` +
          `at most ${UPLOAD_LIMITS.maxFileBytes / 1024 / 1024} MiB each and ${UPLOAD_LIMITS.maxTotalBytes / 1024 / 1024} MiB in total.`,
      ),
  })
  .meta({ title: 'CreateSessionMultipartRequest' });

export const SessionCreatedSchema = z
  .object({
    id: sessionId,
    workflow_id: z.string(),
    workflow_revision: z.number().int().min(1).describe('The published revision the session is pinned to.'),
    url: z.url().describe('The hosted page: {hosted_url}/s/{id}.'),
    status: z.enum(SESSION_STATUSES),
    expires: timestamp,
  })
  .strict()
  .meta({ title: 'SessionCreated' });

export const HolderBindingSchema = z
  .object({
    by: z
      .enum(['first', 'holder_key', 'claims', 'opted_out'])
      .describe(
        'first: the first step (the anchor); holder_key: same holder key as the anchor; claims: another key, ' +
          'same name and birth date as the anchor (normalised, ADR 0026); opted_out: the workflow step is holder "any".',
      ),
    bound_to_stage: z
      .number()
      .int()
      .min(0)
      .nullable()
      .describe('The stage this step is bound to (0); null for the first step and opted-out steps.'),
    holder_key_thumbprint: z
      .string()
      .optional()
      .describe(
        'Only on steps completed before ADR 0046 (their signed results cannot change); never on new ones. ' +
          'A holder key is a stable identifier across sessions and businesses: the binding says the fact, not the key.',
      ),
  })
  .strict()
  .meta({
    title: 'HolderBinding',
    description:
      'Who presented the step: every step is presented by the holder of the first step unless the workflow opts ' +
      'it out (ADR 0026). A fact only: no key, thumbprint or value derived from one (ADR 0046).',
  });

export const StepResultSchema = z
  .object({
    stage: z.number().int().min(0),
    primitive: z.enum(PRIMITIVES),
    audit_id: z.string().describe('GET /v1/audits/{audit_id}.'),
    completed_at: timestamp,
    holder_binding: HolderBindingSchema.optional().describe(
      'Who presented the step (absent only on steps completed before holder binding existed).',
    ),
  })
  .loose()
  .meta({
    title: 'StepResult',
    description: 'One completed step. Primitive-specific fields follow; identify: `claims` (object).',
  });

export const FailureReasonSchema = z
  .object({
    code: z
      .string()
      .describe(
        'failed: the verification code of the refusal that failed the session (e.g. credential_revoked), ' +
          'or the code of the workflow condition that failed it (condition_not_met, age_requirement_not_met, ' +
          'nationality_not_accepted or document_not_accepted; `stage` is the step whose result it tested); ' +
          'expired: session_expired (the overall window passed) or step_window_expired (the step window).',
      ),
    stage: z.number().int().min(0).nullable().describe('Zero-based step; null when never started.'),
    window: z.enum(['overall', 'step']).nullable().describe('expired: which window passed; failed: null.'),
    refused_responses: z
      .number()
      .int()
      .min(1)
      .nullable()
      .describe('failed: refused wallet responses for that step; expired: null.'),
  })
  .strict()
  .meta({ title: 'FailureReason', description: 'Why a session failed or expired.' });

/** The condition that ended a session (session.completed / session.failed `condition`). */
export const ConditionEndSchema = z
  .object({
    stage: z.number().int().min(0).describe('The step whose result the condition tested.'),
    index: z.number().int().min(0).describe("Zero-based position in that step's conditions."),
    outcome: z.enum(['fail', 'complete']),
  })
  .strict()
  .meta({ title: 'ConditionEnd', description: 'Present when a workflow condition ended the session.' });

export const SessionSchema = SessionCreatedSchema.extend({
  created: timestamp,
  metadata: z.record(z.string(), z.unknown()).nullable(),
  results: z.array(StepResultSchema),
  decision_due: timestamp
    .nullable()
    .describe(
      'In awaiting_decision: when the business decision is due (session.decision_due is sent then); else null.',
    ),
  failure_reason: FailureReasonSchema.optional().describe('Present on failed and expired sessions only.'),
})
  .strict()
  .meta({ title: 'Session' });

// ---------------------------------------------------------------------------------------- webhook events

const deliveryId = (event: string) =>
  z
    .string()
    .regex(new RegExp(`^sess_[0-9a-z]+:${event.replace('.', '\\.')}:\\d+$`))
    .describe('X-Service-Delivery-Id: <session_id>:<event>:<counter>, stable across retries.');

// Each event's `data` is one zod schema; session.events.ts types its builders with their z.infer (ADR 0057).

/** step.completed `data`: one completed step, with its primitive's result fields spread in. */
export const StepCompletedDataSchema = z
  .object({
    session_id: sessionId,
    stage: z.number().int().min(0),
    primitive: z.enum(PRIMITIVES),
    audit_id: z.string(),
    holder_binding: HolderBindingSchema.optional().describe(
      'Who presented the step (absent only on events queued before holder binding existed).',
    ),
    condition: ConditionMatchSchema.optional().describe("A workflow condition matched the step's result."),
  })
  .loose()
  .describe(
    'Primitive-specific fields follow; identify: `claims` (object). `condition` (ConditionMatch) when a ' +
      "workflow condition matched the step's result.",
  );

export const StepCompletedEventSchema = z
  .object({
    event: z.literal('step.completed'),
    delivery_id: deliveryId('step.completed'),
    data: StepCompletedDataSchema,
  })
  .strict();

/** The statuses whose entry sends session.<status>: the machine's terminal ones (session.machine.ts). */
export const SESSION_END_EVENTS = TERMINAL_STATUSES;
export type SessionEndStatus = TerminalStatus;

/** session.* `completed_steps`: what it counts (issue 29: a step a workflow condition failed is not completed). */
const completedStepsField = z
  .number()
  .int()
  .min(0)
  .describe(
    'Steps the person completed, in step order up to where the session stands (a step a workflow condition ' +
      'skipped counts as passed). A step whose wallet response was verified but whose workflow condition failed ' +
      'the session (e.g. age_requirement_not_met) is not counted, although its step.completed was sent.',
  );

/**
 * session.completed / stopped / failed / expired `data`: every field any of the four carries. failure_reason
 * on failed and expired only; condition on completed and failed, when a workflow condition ended it (ADR 0031).
 */
export const SessionEndedDataSchema = z
  .object({
    session_id: sessionId,
    status: z.enum(SESSION_END_EVENTS),
    workflow_id: z.string(),
    workflow_revision: z.number().int(),
    completed_steps: completedStepsField,
    failure_reason: FailureReasonSchema.optional(),
    condition: ConditionEndSchema.optional(),
  })
  .strict();

/** One end event's schema: SessionEndedDataSchema narrowed to what that status carries. */
export const sessionEndedEventSchema = (status: SessionEndStatus) => {
  const unhappy = status === 'failed' || status === 'expired';
  const byCondition = status === 'failed' || status === 'completed';
  const data = SessionEndedDataSchema.omit({
    ...(unhappy ? {} : { failure_reason: true }),
    ...(byCondition ? {} : { condition: true }),
  } as { failure_reason?: true; condition?: true }).extend({
    status: z.literal(status),
    ...(unhappy ? { failure_reason: FailureReasonSchema } : {}),
  });
  return z
    .object({ event: z.literal(`session.${status}`), delivery_id: deliveryId(`session.${status}`), data })
    .strict();
};

/** session.decision_due `data`: the gate's decision is overdue (ADR 0008). */
export const DecisionDueDataSchema = z
  .object({
    session_id: sessionId,
    status: z.literal('awaiting_decision'),
    workflow_id: z.string(),
    workflow_revision: z.number().int(),
    completed_steps: completedStepsField,
    decision_due: timestamp,
  })
  .strict();

/** The reminder that a session waits at a gate past its decision deadline (ADR 0008); sent once per gate. */
export const SessionDecisionDueEventSchema = z
  .object({
    event: z.literal('session.decision_due'),
    delivery_id: deliveryId('session.decision_due'),
    data: DecisionDueDataSchema,
  })
  .strict();

// ---------------------------------------------------------------------------------------- route headers

export const idempotencyKeyHeader = {
  description:
    'Optional. A repeat with the same key (same business and environment, within 24 h) returns the original ' +
    'session and status code with Idempotent-Replayed: true; bodies are not compared.',
  schema: z
    .string()
    .min(1)
    .max(SESSION_LIMITS.idempotencyKeyMaxLength)
    .regex(/^[\x21-\x7e]+$/),
};

// ------------------------------------------------------------------------------------------------ types

export type SessionCreated = z.infer<typeof SessionCreatedSchema>;
export type StepResultView = z.infer<typeof StepResultSchema>;
export type SessionView = z.infer<typeof SessionSchema>;
