// What one primitive is, in one place (ADR 0054): the step fields it stores and how they are validated, its
// window, the credential formats and the wallet request it asks with, the result a business receives, what it
// seals as evidence and writes into the signed audit record, whether conditions and ISO 18013-7 Annex C apply,
// how its holder is identified, and the keys the hosted page and the receipt show it under. Everything that
// used to switch on a primitive reads it from here (PRIMITIVE_SPECS, ./index.ts).
import type { Primitive, WorkflowStep } from './step';

/**
 * What a primitive reads of a verified presentation (verification/presentation-verifier.ts VerifiedPresentation
 * has these fields and more). Named here, not imported: the verifier reads the registry through the routes'
 * trust (route-scope.ts), so the registry stays below it.
 */
export interface VerifiedPresentation {
  format: 'dc+sd-jwt' | 'mso_mdoc';
  /** Exactly the requested claims (keyed by claim path), plus document_status. */
  claims: Record<string, unknown>;
  holderKeyThumbprint: string;
  holderJwk: unknown;
  verifiedAt: Date;
  /** SD-JWT VC: the key-binding JWT. */
  keyBindingJwt: string;
  /** mdoc: the device signature (COSE_Sign1, base64url). */
  deviceSignature?: string;
  /** The transaction data the holder signed (as requested, base64url). */
  transactionData: string[];
}

/** A sign step's document as bound into the request (from the document rows of the session). */
export interface StepDocument {
  label: string;
  sha256: string;
  size: number;
  content_type: string;
}

export interface StepRequestContext {
  /** sign: the documents of this step, in upload order. */
  documents?: StepDocument[];
  /**
   * The first step's identifying claims this later step must also ask for, to bind its holder by claims when
   * the key differs (holder-binding.ts bindingClaimsFor; empty or absent: nothing added).
   */
  bindingClaims?: readonly string[];
}

/** A step field's validation: `bad(detail)` builds the workflow_invalid error naming `steps[i].<field>`. */
export interface FieldCheck {
  forPublish: boolean;
  bad: (detail: string, field?: string) => Error;
}

export interface PrimitiveSpec<P extends Primitive = Primitive> {
  name: P;
  /**
   * The primitive's bit (a power of two) in `credential_route.primitives` (the route's capability set, ADR 0054). Never reused
   * nor renumbered: stored rows carry it.
   */
  bit: number;
  /** The field name in GraphQL objects keyed by primitive (catalog flags, formats, protocols). */
  graphqlField: string;
  /** The step fields this primitive owns (beyond primitive, gate_after, holder, routes, conditions). */
  fields: readonly (keyof WorkflowStep)[];
  /** A valid step of this primitive: documentation, and what the registry test builds a request from. */
  example: Omit<WorkflowStep, 'primitive'>;
  /** Validates and normalizes the primitive's own fields of a raw step; throws `check.bad(...)`. */
  validate(raw: Partial<WorkflowStep>, check: FieldCheck): Partial<WorkflowStep>;
  /** Minutes the person has once the step starts (README Limits: "Step window after the step starts"). */
  windowMinutes: number;
  /** The credential formats this verifier asks for with this primitive (the catalog offers only these). */
  formats: readonly string[];
  /** The OpenID4VP request (DCQL, and transaction_data where the primitive binds documents or terms). */
  request(step: WorkflowStep, nonce: string, ctx: StepRequestContext): { request: Record<string, unknown> };
  /** The business-visible result of a verified step. */
  result(step: WorkflowStep, v: VerifiedPresentation): Record<string, unknown>;
  /** Whether the full presentation is sealed as evidence (verification/primitives.ts evidenceForStep). */
  sealsEvidence: boolean;
  /** Facts for the signed audit record beyond the common ones (never claims). */
  auditFacts(step: WorkflowStep, v: VerifiedPresentation): Record<string, unknown>;
  /**
   * The audit record's `status` (ADR 0046): `full` keeps the status list reference (only beside a holder
   * signature), `outcome` only the outcome and the mechanisms.
   */
  auditStatus: 'full' | 'outcome';
  /** Condition support (conditions.ts, ADR 0031); null: a step of this primitive takes no conditions. */
  conditions: {
    /** The result fields a condition on this step may test. */
    claims(step: { claims?: readonly string[] }): readonly string[];
    /** The tested value of `claim` in a result. */
    valueOf(result: Record<string, unknown>, claim: string): unknown;
  } | null;
  /** Offered over ISO 18013-7 Annex C (org-iso-mdoc): only without transaction data to bind. */
  annexC: boolean;
  /** Holder binding (ADR 0026): the identifying claims this step discloses, and where they are kept. */
  holder: {
    disclosedClaims(step: WorkflowStep): readonly string[];
    /** `result`: the stored result's `claims`; `evidence`: the sealed evidence's `identifying_claims`. */
    claimsIn: 'result' | 'evidence';
  };
  /** Whether a session of a workflow with this step is created with documents (multipart). */
  needsDocuments: boolean;
  /** Message keys of the hosted page (hosted-web/src/i18n): the step list title and the step's heading. */
  ui: { title: string; heading: string };
}
