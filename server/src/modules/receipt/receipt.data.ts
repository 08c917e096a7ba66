// Owns the receipt's content (spec §1, ADR 0027): the receipt data of a session (completed steps with their
// signed audit records and the keys that verify them), its sealed PDF and file name. Used by the downloads,
// the emailed receipt and the receipt-page link alike.
import { In } from 'typeorm';
import { AppError } from '../../common/errors';
import type { AuditRecordContent } from '../audit/audit.service';
import { AuditRecordEntity } from '../audit/audit-record.entity';
import { pageBrandOf } from '../branding/branding.service';
import type { SessionEntity } from '../session/session.entity';
import { toRevisionView } from '../workflow/workflow.service';
import type { ReceiptDeps, SignerAccess } from './receipt.access';
import { RECEIPT_STATEMENT, type ReceiptData, type ReceiptStep, renderReceiptPdf } from './receipt.document';
import type { ReceiptDeliveryEntity } from './receipt.entities';
import { SEAL_COVERS } from './receipt.seal';
import { presentationOf, type ReceiptPresentation } from './receipt.words';

export class ReceiptRecords {
  constructor(
    private readonly deps: Pick<ReceiptDeps, 'ds' | 'clock' | 'config' | 'audit' | 'workflows'>,
    private readonly access: Pick<SignerAccess, 'completedRows'>,
  ) {}

  /** The receipt data of a session (also the emailed attachment): completed steps with their records. */
  async receiptData(s: SessionEntity, presentation?: ReceiptPresentation): Promise<ReceiptData> {
    const rows = await this.access.completedRows(s.id);
    if (rows.length === 0) throw new AppError('receipt_not_available');
    const rev = toRevisionView(
      await this.deps.workflows.revision(this.deps.ds.manager, s.workflowId, s.workflowRevision),
    );
    // the business by its public name, as the hosted page shows it (display name, else its name; issue 29)
    const business = await pageBrandOf(this.deps.ds, s.businessId, s.environment);
    const audits = await this.deps.ds
      .getRepository(AuditRecordEntity)
      .findBy({ id: In(rows.map((r) => r.auditId)), businessId: s.businessId });
    const byId = new Map(audits.map((a) => [a.id, a]));
    const steps: ReceiptStep[] = rows.map((r) => {
      const a = byId.get(r.auditId);
      if (!a) throw new Error('audit record missing for a completed step');
      const terms = rev.steps[r.stage]?.terms;
      return {
        stage: r.stage,
        primitive: r.primitive,
        completed_at: r.completedAt.toISOString(),
        result: JSON.parse(r.result) as Record<string, unknown>,
        ...(terms !== undefined ? { terms } : {}),
        audit_id: a.id,
        audit_digest: a.digest,
        audit_record: {
          ...(JSON.parse(a.record) as AuditRecordContent),
          service_signature: { kid: a.kid, value: a.signature },
        },
      };
    });
    const sealKid = await this.deps.audit.sealKid();
    const kids = new Set([...audits.map((a) => a.kid), sealKid]);
    const jwks = await this.deps.audit.jwks();
    return {
      type: 'service.receipt',
      version: 3,
      generated_at: this.deps.clock.now().toISOString(),
      partial: s.status !== 'completed',
      example: s.environment === 'sandbox',
      statement: RECEIPT_STATEMENT,
      session: {
        id: s.id,
        status: s.status,
        environment: s.environment,
        created_at: s.createdAt.toISOString(),
        ended_at: s.endedAt?.toISOString() ?? null,
        total_steps: rev.steps.length,
      },
      business: { name: business.name },
      workflow: { id: s.workflowId, name: rev.name, revision: s.workflowRevision },
      steps,
      keys: { keys: jwks.keys.filter((k) => kids.has(k.kid)) },
      jwks_url: `${this.deps.config.baseUrl}/.well-known/service-audit-jwks.json`,
      verify_url: `${this.deps.config.baseUrl}/verify`,
      seal: { alg: 'ES256', kid: sealKid, covers: SEAL_COVERS },
      ...(presentation ? { presentation } : {}),
    };
  }

  /** The receipt PDF of receiptData, sealed with the key it names (ADR 0027). */
  renderPdf(data: ReceiptData): Promise<Uint8Array> {
    const kid = data.seal?.kid;
    if (!kid) return renderReceiptPdf(data);
    return renderReceiptPdf(data, (zeroed) => this.deps.audit.sealPdf(kid, zeroed));
  }
}

/** The language and zone stored with a delivery (unknown values: en, UTC); none stored: the default page. */
export function presentationOfDelivery(d: ReceiptDeliveryEntity): ReceiptPresentation | undefined {
  return d.lang || d.timeZone ? presentationOf(d.lang, d.timeZone) : undefined;
}

export function receiptFilename(data: ReceiptData): string {
  return `receipt-${data.partial ? 'partial-' : ''}${data.session.id.slice(5, 13)}.pdf`;
}
