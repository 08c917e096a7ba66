// Owns audit records: one signed, append-only record per completed step, hash-chained within its session,
// and the business-facing view with its detached service_signature. No code path updates or deletes
// audit_record rows.
import { createHash } from 'node:crypto';
import type { DataSource, EntityManager } from 'typeorm';
import { LessThan } from 'typeorm';
import { type Ctx, tenantOf } from '../../common/context';
import { AppError } from '../../common/errors';
import { insertRowAtCommit } from '../../db/fast-sql';
import type { AuditJwk, KmsProvider } from '../kms/kms';
import { AuditRecordEntity } from './audit-record.entity';
import { canonicalDigest, canonicalJson } from './canonical-json';

export interface AuditStepInput {
  sessionId: string;
  businessId: string;
  environment: 'sandbox' | 'production';
  workflowId: string;
  workflowRevision: number;
  stage: number;
  primitive: string;
  /** The business-visible result; only its digest enters the record. */
  result: unknown;
  /** Verification facts: format, issuer, vct, holder key thumbprint, status, request id, checks. */
  verification: Record<string, unknown>;
  /** The workflow condition that matched this result and what it decided (ADR 0031); absent when none did. */
  condition?: Record<string, unknown>;
  completedAt: Date;
}

/** The signed content of an audit record (everything here is covered by the digest). */
export interface AuditRecordContent {
  audit_id: string;
  version: 1;
  type: 'step.completed';
  session_id: string;
  business_id: string;
  environment: 'sandbox' | 'production';
  workflow_id: string;
  workflow_revision: number;
  stage: number;
  primitive: string;
  result_digest: string;
  verification: Record<string, unknown>;
  previous_audit_hash: string | null;
  signed_at: string;
  /** Only when a workflow condition matched the step's result: which one and its outcome (ADR 0031). */
  condition?: Record<string, unknown>;
}

/** GET /v1/audits/{id}: the signed content plus the detached signature (not a JWS). */
export type AuditRecordView = AuditRecordContent & { service_signature: { kid: string; value: string } };

export const auditIdOf = (sessionId: string, stage: number): string => `${sessionId}_${stage}`;

export class AuditService {
  private readonly ds: DataSource;
  private readonly kms: KmsProvider;

  constructor(deps: { ds: DataSource; kms: KmsProvider }) {
    this.ds = deps.ds;
    this.kms = deps.kms;
  }

  /** Writes the step's audit record inside the caller's transaction (`manager`). */
  async recordStep(
    manager: EntityManager,
    input: AuditStepInput,
  ): Promise<{ auditId: string; digest: string }> {
    const auditId = auditIdOf(input.sessionId, input.stage);
    // the first step has no record before it: no read (ADR 0045, statements per session)
    const previous =
      input.stage === 0
        ? null
        : // sql-lint-allow: session-scope: by session_id, unique across tenants: routed by a session_id lookup vindex
          await manager.getRepository(AuditRecordEntity).findOne({
            where: { sessionId: input.sessionId, stage: LessThan(input.stage) },
            order: { stage: 'DESC' },
            select: { digest: true },
          });
    const content: AuditRecordContent = {
      audit_id: auditId,
      version: 1,
      type: 'step.completed',
      session_id: input.sessionId,
      business_id: input.businessId,
      environment: input.environment,
      workflow_id: input.workflowId,
      workflow_revision: input.workflowRevision,
      stage: input.stage,
      primitive: input.primitive,
      result_digest: `sha-256:${canonicalDigest(input.result).toString('base64url')}`,
      verification: input.verification,
      previous_audit_hash: previous?.digest ?? null,
      signed_at: input.completedAt.toISOString(),
      // absent unless a condition matched: records without one keep their canonical form
      ...(input.condition ? { condition: input.condition } : {}),
    };
    const canonical = canonicalJson(content);
    const canonicalBytes = Buffer.from(canonical, 'utf8');
    const digest = createHash('sha256').update(canonicalBytes).digest();
    // through the caller's transaction: never a second pool connection while it holds one (ADR 0044)
    const kid = await this.kms.currentKeyVersion('audit-signing', manager);
    const signature = Buffer.from(await this.kms.signDigest(kid, digest, manager, canonicalBytes)).toString(
      'base64url',
    );
    // plain INSERT (fast-sql.ts), every column set; nothing in the unit reads it, so in a batched transition it
    // goes with the COMMIT, after the request's consume and the move decided (ADR 0058 amendment); a duplicate
    // record is refused there and the unit rolled back
    await insertRowAtCommit(
      manager.dataSource,
      AuditRecordEntity,
      Object.assign(new AuditRecordEntity(), {
        id: auditId,
        businessId: input.businessId,
        sessionId: input.sessionId,
        stage: input.stage,
        record: canonical,
        digest: digest.toString('hex'),
        kid,
        signature,
        createdAt: input.completedAt,
      }),
      manager,
    );
    return { auditId, digest: digest.toString('hex') };
  }

  /** A record of another business or environment is not_found, never forbidden. */
  async getForBusiness(ctx: Ctx, auditId: string): Promise<AuditRecordView> {
    return (await this.getWithDigest(ctx, auditId)).view;
  }

  /**
   * The record as GET /v1/audits/{id} answers it, plus the stored digest (hex SHA-256 of the canonical
   * content, the value the next record's previous_audit_hash chains to); same tenant scoping.
   */
  async getWithDigest(ctx: Ctx, auditId: string): Promise<{ view: AuditRecordView; digest: string }> {
    const tenant = tenantOf(ctx);
    // sql-lint-allow: session-scope: by primary key (ids are globally unique): a lookup vindex on the id routes it to one shard; the tenant is checked on the row
    const row = await (ctx.manager ?? this.ds.manager)
      .getRepository(AuditRecordEntity)
      .findOneBy({ id: auditId });
    const content = row ? (JSON.parse(row.record) as AuditRecordContent) : null;
    if (!row || row.businessId !== tenant.businessId || content?.environment !== tenant.environment) {
      throw new AppError('not_found', 'No such audit record.');
    }
    return {
      view: { ...content, service_signature: { kid: row.kid, value: row.signature } },
      digest: row.digest,
    };
  }

  /**
   * The key version that seals a receipt rendered now: the receipt seal's own key (ADR 0047, one key, one
   * purpose), published in the same key set as the audit keys with `purpose: "receipt-seal"`.
   */
  sealKid(): Promise<string> {
    return this.kms.currentKeyVersion('receipt-seal');
  }

  /**
   * The seal of a receipt PDF (ADR 0027): a DER signature over SHA-256 of the file with its seal zeroed.
   * Only PDF bytes are sealed, and only with a receipt-seal key (the KMS key version of that purpose).
   */
  async sealPdf(kid: string, zeroedPdf: Uint8Array): Promise<Uint8Array> {
    if (Buffer.from(zeroedPdf.subarray(0, 5)).toString('latin1') !== '%PDF-')
      throw new Error('only a PDF file is sealed');
    if (!(await this.kms.publicJwks('receipt-seal')).some((k) => k.kid === kid))
      throw new Error('a receipt is sealed only with a receipt-seal key');
    return this.kms.signDigest(kid, createHash('sha256').update(zeroedPdf).digest(), undefined, zeroedPdf);
  }

  /**
   * The service's published key set: every audit signing key and every receipt seal key that is not retired,
   * each with its `purpose` (a verifier accepts a key only for its purpose).
   */
  async jwks(): Promise<{ keys: AuditJwk[] }> {
    const [audit, seal] = await Promise.all([
      this.kms.publicJwks('audit-signing'),
      this.kms.publicJwks('receipt-seal'),
    ]);
    return {
      keys: [
        ...audit.map((k) => ({ ...k, purpose: 'audit-signing' as const })),
        ...seal.map((k) => ({ ...k, purpose: 'receipt-seal' as const })),
      ],
    };
  }
}
