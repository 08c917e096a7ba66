// Owns the contract of the audit routes: the audit record (GET /v1/audits/{id}) and the audit key set.
import { z } from 'zod';
import { sessionId, timestamp } from '../../common/contract-atoms';
import { ConditionMatchSchema } from '../workflow/conditions.contract';
import { PRIMITIVES } from '../workflow/workflow.steps';

export const AuditRecordSchema = z
  .object({
    audit_id: z.string(),
    version: z.literal(1),
    type: z.literal('step.completed'),
    session_id: sessionId,
    business_id: z.string(),
    environment: z.enum(['sandbox', 'production']),
    workflow_id: z.string(),
    workflow_revision: z.number().int(),
    stage: z.number().int(),
    primitive: z.enum(PRIMITIVES),
    result_digest: z.string().describe('SHA-256 of the business-visible result.'),
    verification: z.record(z.string(), z.unknown()),
    previous_audit_hash: z.string().nullable(),
    signed_at: timestamp,
    condition: ConditionMatchSchema.optional().describe(
      "Only when a workflow condition matched the step's result: which one and what it decided.",
    ),
    service_signature: z
      .object({
        kid: z.string().describe('KMS key-version resource name; the key is in the audit JWKS.'),
        value: z.string().describe('base64url DER ECDSA P-256 signature over SHA-256(JCS(record)).'),
      })
      .strict(),
  })
  .strict()
  .meta({ title: 'AuditRecord' });

export const JwksSchema = z
  .object({
    keys: z.array(
      z
        .object({
          kty: z.literal('EC'),
          crv: z.literal('P-256'),
          alg: z.literal('ES256'),
          use: z.literal('sig'),
          kid: z.string(),
          x: z.string(),
          y: z.string(),
          purpose: z
            .enum(['audit-signing', 'receipt-seal'])
            .describe(
              'What the key signs: audit records (audit-signing) or the seal over a receipt PDF (receipt-seal). ' +
                'A verifier accepts a key only for its purpose.',
            ),
        })
        .strict(),
    ),
  })
  .strict()
  .meta({ title: 'AuditJwks' });
