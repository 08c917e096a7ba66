// Owns the signer's record (spec §1, §4.4, §8): what the bound browser may read and download about its own
// session, for how long, and the emailed receipt. The parts: who may read and until when (receipt.access.ts),
// the receipt's content and PDF (receipt.data.ts), the emailed receipt and its codes (receipt.email.ts); this
// class is the one entry point the routes, resolvers and workers call. Rules:
// - Only the browser bound at start may act; access lasts RECEIPT_LIMITS.accessMs after the session's
//   terminal state, unless the signer closed it; after that every read, download, email and receipt link is
//   refused (receipt_access_ended / _closed).
// Nothing here starts or advances a session, and nothing writes evidence tables.
import { MoreThan, Not } from 'typeorm';
import { type Ctx, tenantOf } from '../../common/context';
import { AppError } from '../../common/errors';
import { logTag, sha256Hex } from '../../common/ids';
import { lockSessionRow, transactionWithRetry } from '../../db/data-source';
import { type Branding, brandingOf } from '../branding/branding.service';
import type { DocumentEntity } from '../document/document.entity';
import { SessionEntity } from '../session/session.entity';
import { isTerminal } from '../session/session.machine';
import { conditionFailedStage } from '../session/session.state';
import { toRevisionView } from '../workflow/workflow.service';
import {
  maskEmail,
  RECEIPT_LIMITS,
  type ReceiptDeps,
  type ReceiptRead,
  type ReceiptState,
  SignerAccess,
} from './receipt.access';
import { presentationOfDelivery, ReceiptRecords, receiptFilename } from './receipt.data';
import type { ReceiptData } from './receipt.document';
import { ReceiptEmails } from './receipt.email';
import { ReceiptAccessEntity, ReceiptCodeEntity, ReceiptDeliveryEntity } from './receipt.entities';
import { DEFAULT_PRESENTATION, RECEIPT_LANGS, type ReceiptPresentation } from './receipt.words';

export {
  type AccessState,
  maskEmail,
  type OriginalView,
  RECEIPT_LIMITS,
  type ReceiptDeps,
  type ReceiptMailer,
  type ReceiptRead,
  type ReceiptState,
} from './receipt.access';
export { receiptFilename } from './receipt.data';

export class ReceiptService {
  private readonly access: SignerAccess;
  private readonly records: ReceiptRecords;
  private readonly emails: ReceiptEmails;

  constructor(private readonly deps: ReceiptDeps) {
    this.access = new SignerAccess(deps);
    this.records = new ReceiptRecords(deps, this.access);
    this.emails = new ReceiptEmails(deps, this.access, this.records, (id, token) => this.state(id, token));
  }

  /** For other signer downloads (SessionTransport.documentFile): refused once access ended or was closed. */
  assertSignerAccessOpen(s: SessionEntity): Promise<void> {
    return this.access.assertSignerAccessOpen(s);
  }

  // ------------------------------------------------------------------------------------------ reads

  /** GET /v1/sessions/{id}/receipt: the completed prefix of the results, for the bound browser only. */
  async read(sessionId: string, browserToken: string | undefined): Promise<ReceiptRead> {
    const l = await this.access.load(sessionId, browserToken);
    this.access.assertOpen(l);
    const rows = await this.access.completedRows(l.s.id);
    return {
      session_id: l.s.id,
      status: l.s.status,
      partial: l.s.status !== 'completed',
      access_until: l.accessUntil?.toISOString() ?? null,
      results: rows.map((r) => ({
        stage: r.stage,
        primitive: r.primitive,
        audit_id: r.auditId,
        completed_at: r.completedAt.toISOString(),
        ...(JSON.parse(r.result) as Record<string, unknown>),
      })),
    };
  }

  /** The receipt data of a session (also the emailed attachment): completed steps with their records. */
  receiptData(s: SessionEntity, presentation?: ReceiptPresentation): Promise<ReceiptData> {
    return this.records.receiptData(s, presentation);
  }

  /** The receipt PDF of receiptData, sealed with the key it names (ADR 0027). */
  renderPdf(data: ReceiptData): Promise<Uint8Array> {
    return this.records.renderPdf(data);
  }

  /** The receipt PDF for the bound browser; records the download (the close-access warning reads it). */
  async pdf(
    sessionId: string,
    browserToken: string | undefined,
    presentation?: ReceiptPresentation,
  ): Promise<{ bytes: Uint8Array; filename: string }> {
    const l = await this.access.load(sessionId, browserToken);
    this.access.assertOpen(l);
    const data = await this.receiptData(l.s, presentation);
    const bytes = await this.renderPdf(data);
    await this.recordDownload(l.s);
    return { bytes, filename: receiptFilename(data) };
  }

  /** The exact bytes of an original of a completed sign step, for the bound browser. */
  async original(
    sessionId: string,
    browserToken: string | undefined,
    position: number,
  ): Promise<{ doc: DocumentEntity; bytes: Buffer }> {
    const l = await this.access.load(sessionId, browserToken);
    this.access.assertOpen(l);
    const doc = (await this.originals(l.s)).find((d) => d.position === position);
    if (!doc) throw new AppError('not_found', 'No such signed original in this session.');
    return { doc, bytes: await this.deps.documents.bytes(doc) };
  }

  /**
   * The signed originals of a session of the caller's business in the caller's environment (dashboard,
   * issue 20). Another business's or environment's session is not_found, as everywhere.
   */
  async businessOriginals(ctx: Ctx, sessionId: string): Promise<DocumentEntity[]> {
    const { businessId, environment } = tenantOf(ctx);
    const s = await this.deps.ds.manager
      .getRepository(SessionEntity)
      .findOneBy({ id: sessionId, businessId, environment });
    if (!s) throw new AppError('not_found', 'No session with this id.', { param: 'id' });
    return this.originals(s);
  }

  /** The exact bytes of one signed original, for the business (dashboard download). */
  async businessOriginal(
    ctx: Ctx,
    sessionId: string,
    position: number,
  ): Promise<{ doc: DocumentEntity; bytes: Buffer }> {
    const doc = (await this.businessOriginals(ctx, sessionId)).find((d) => d.position === position);
    if (!doc) throw new AppError('not_found', 'No such signed original in this session.');
    return { doc, bytes: await this.deps.documents.bytes(doc) };
  }

  /** Documents of sign steps that completed (the signed originals). */
  private async originals(s: SessionEntity): Promise<DocumentEntity[]> {
    const done = new Set((await this.access.completedRows(s.id)).map((r) => r.stage));
    return (await this.deps.documents.forSession(this.deps.ds.manager, s.id)).filter((d) =>
      done.has(d.stage),
    );
  }

  /** The done/partial screen: access, deadline, originals, email flow. Readable also after access ended. */
  async state(sessionId: string, browserToken: string | undefined): Promise<ReceiptState> {
    const l = await this.access.load(sessionId, browserToken);
    const rows = await this.access.completedRows(l.s.id);
    const rev = toRevisionView(
      await this.deps.workflows.revision(this.deps.ds.manager, l.s.workflowId, l.s.workflowRevision),
    );
    const now = this.deps.clock.now();
    const open = l.state === 'open';
    const codes = await this.deps.ds.getRepository(ReceiptCodeEntity).find({
      where: {
        sessionId: l.s.id,
        createdAt: MoreThan(new Date(now.getTime() - 3600_000)),
        state: Not('undelivered'),
      },
      order: { createdAt: 'DESC' },
    });
    const latest = codes[0];
    const live = latest && latest.state === 'open' && latest.expiresAt > now ? latest : undefined;
    const sent = await this.deps.ds
      .getRepository(ReceiptDeliveryEntity)
      .find({ where: { sessionId: l.s.id, state: Not('withdrawn') }, order: { createdAt: 'ASC' } });
    const base = `/t/sessions/${l.s.id}`;
    return {
      session_status: l.s.status,
      environment: l.s.environment,
      partial: l.s.status !== 'completed',
      // a step whose condition failed the session (a minor's age check) is not a completed step (issue 29)
      completed_steps: rows.filter((r) => r.stage !== conditionFailedStage(l.s)).length,
      total_steps: rev.steps.length,
      access: l.state,
      access_until: l.accessUntil?.toISOString() ?? null,
      pdf_downloaded: Boolean(l.access?.pdfDownloadedAt),
      can_close: open && isTerminal(l.s.status),
      receipt_url: `${base}/receipt.pdf`,
      originals: open
        ? (await this.originals(l.s)).map((d) => ({
            position: d.position,
            stage: d.stage,
            label: d.label,
            sha256: d.sha256,
            size: d.size,
            content_type: d.contentType,
            url: `${base}/originals/${d.position}`,
          }))
        : [],
      email: {
        code_sent_to: live ? maskEmail(live.email) : null,
        code_expires_at: live?.expiresAt.toISOString() ?? null,
        resend_available_at: latest
          ? new Date(latest.createdAt.getTime() + RECEIPT_LIMITS.codeResendMs).toISOString()
          : null,
        codes_left_this_hour: Math.max(0, RECEIPT_LIMITS.codesPerHour - codes.length),
        sent_to: sent.map((d) => maskEmail(d.email)),
      },
    };
  }

  // ------------------------------------------------------------------------------------------ changes

  private async recordDownload(s: SessionEntity): Promise<void> {
    const now = this.deps.clock.now();
    await transactionWithRetry(this.deps.ds, async (m) => {
      await lockSessionRow(m, s.id);
      const repo = m.getRepository(ReceiptAccessEntity);
      const row = await repo.findOneBy({ sessionId: s.id });
      if (row) await repo.update({ sessionId: s.id }, { pdfDownloadedAt: now });
      else
        await repo.insert({
          sessionId: s.id,
          businessId: s.businessId,
          pdfDownloadedAt: now,
          closedAt: null,
          createdAt: now,
        });
    });
  }

  /**
   * Closes online access permanently (after the session ended). Idempotent. The outcome and evidence are
   * untouched; deliveries already authorized may still be sent.
   */
  async close(sessionId: string, browserToken: string | undefined): Promise<ReceiptState> {
    const l = await this.access.load(sessionId, browserToken);
    if (l.state === 'closed') return this.state(sessionId, browserToken);
    this.access.assertOpen(l);
    if (!isTerminal(l.s.status))
      throw new AppError('session_state_conflict', 'Online access can be closed after the session ended.');
    const now = this.deps.clock.now();
    await transactionWithRetry(this.deps.ds, async (m) => {
      await lockSessionRow(m, l.s.id);
      const repo = m.getRepository(ReceiptAccessEntity);
      const row = await repo.findOneBy({ sessionId: l.s.id });
      if (!row)
        await repo.insert({
          sessionId: l.s.id,
          businessId: l.s.businessId,
          pdfDownloadedAt: null,
          closedAt: now,
          createdAt: now,
        });
      else if (!row.closedAt)
        await m
          .createQueryBuilder()
          .update(ReceiptAccessEntity)
          .set({ closedAt: now })
          .where('session_id = :id AND closed_at IS NULL', { id: l.s.id })
          .execute();
      // any code still open can no longer be used
      await m
        .createQueryBuilder()
        .update(ReceiptCodeEntity)
        .set({ state: 'void' })
        .where('session_id = :id AND state = :open', { id: l.s.id, open: 'open' })
        .execute();
    });
    this.deps.logger.info('receipt access closed', { session: logTag(l.s.id) });
    return this.state(sessionId, browserToken);
  }

  /** Sends a six-digit code to `email`, within the resend delay and the hourly limit (receipt.email.ts). */
  requestCode(
    sessionId: string,
    browserToken: string | undefined,
    email: unknown,
    presentation: ReceiptPresentation = DEFAULT_PRESENTATION,
  ): Promise<ReceiptState> {
    return this.emails.requestCode(sessionId, browserToken, email, presentation);
  }

  /** Checks the code and authorizes the emailed receipt, then sends it (receipt.email.ts). */
  verifyCodeAndSend(
    sessionId: string,
    browserToken: string | undefined,
    code: unknown,
    presentation?: ReceiptPresentation,
  ): Promise<ReceiptState> {
    return this.emails.verifyCodeAndSend(sessionId, browserToken, code, presentation);
  }

  /** Sends one authorized delivery (receipt.email.ts). */
  deliver(deliveryId: string): Promise<boolean> {
    return this.emails.deliver(deliveryId);
  }

  /** Worker pass: sends deliveries left pending by a failed send (bounded batch). */
  deliverPending(limit = 20): Promise<number> {
    return this.emails.deliverPending(limit);
  }

  // ------------------------------------------------------------------------------------------ links

  /** The receipt-page capability of an emailed receipt: valid while the signer's access is open. */
  async byLink(
    token: string,
    lang?: unknown,
  ): Promise<{
    s: SessionEntity;
    data: ReceiptData;
    accessUntil: Date | null;
    presentation: ReceiptPresentation;
    brand: Branding;
  }> {
    const d =
      typeof token === 'string' && /^[\w-]{43}$/.test(token)
        ? await this.deps.ds.getRepository(ReceiptDeliveryEntity).findOneBy({ linkHash: sha256Hex(token) })
        : null;
    // sql-lint-allow: session-scope: by primary key (ids are globally unique): a lookup vindex on the id routes it to one shard
    const s = d ? await this.deps.ds.getRepository(SessionEntity).findOneBy({ id: d.sessionId }) : null;
    if (!d || !s) throw new AppError('not_found', 'This receipt link is not valid.');
    const access = await this.deps.ds.getRepository(ReceiptAccessEntity).findOneBy({ sessionId: s.id });
    const l = this.access.accessOf(s, access);
    this.access.assertOpen(l);
    // the language chosen on the page, else the one the delivery was asked in, else English (zone: the delivery's)
    const stored = presentationOfDelivery(d) ?? DEFAULT_PRESENTATION;
    const chosen = RECEIPT_LANGS.find((x) => x === lang);
    const presentation = chosen ? { ...stored, lang: chosen } : stored;
    return {
      s,
      data: await this.receiptData(s, chosen || presentationOfDelivery(d) ? presentation : undefined),
      accessUntil: l.accessUntil,
      presentation,
      brand: await brandingOf(this.deps.ds.manager, s.businessId, s.environment),
    };
  }
}
