// Owns the signer's record (spec §1, §4.4, §8): what the bound browser may read and download about its own
// session, for how long, and the emailed receipt. Rules:
// - Only the browser bound at start (SessionTransport.bindingOf, the one binding check) may act; another
//   browser gets session_bound_elsewhere, an unknown session not_found.
// - Access lasts RECEIPT_ACCESS_MS after the session's terminal state, unless the signer closed it; after
//   that every read, download, email and receipt link is refused (receipt_access_ended / _closed).
// - Email codes: six digits, valid 10 min, one new code per minute, at most 5 per hour per session (counted in
//   the database transaction under the session row lock), stored hashed, single use, voided after
//   MAX_CODE_ATTEMPTS wrong tries.
// Nothing here starts or advances a session, and nothing writes evidence tables.
import { randomInt } from 'node:crypto';
import { type DataSource, In, LessThan, MoreThan, Not } from 'typeorm';
import type { Clock } from '../../common/clock';
import { safeEqual } from '../../common/crypto';
import { AppError } from '../../common/errors';
import { logTag, newId, randomToken, sha256Hex } from '../../common/ids';
import type { Logger } from '../../common/logger';
import type { Config } from '../../config/config';
import { lockSessionRow, transactionWithRetry } from '../../db/data-source';
import type { AuditRecordContent, AuditService } from '../audit/audit.service';
import { AuditRecordEntity } from '../audit/audit-record.entity';
import { type Branding, brandingOf } from '../branding/branding.service';
import type { DocumentEntity } from '../document/document.entity';
import type { DocumentService } from '../document/document.service';
import { SessionEntity } from '../session/session.entity';
import { isTerminal } from '../session/session.machine';
import type { StepResultView } from '../session/session.service';
import { enforceExpiry } from '../session/session.transition';
import type { SessionTransport } from '../session/session.transport';
import { StepResultEntity } from '../session/step-result.entity';
import { BusinessEntity } from '../tenancy/business.entity';
import { toRevisionView, type WorkflowService } from '../workflow/workflow.service';
import { RECEIPT_STATEMENT, type ReceiptData, type ReceiptStep, renderReceiptPdf } from './receipt.document';
import { ReceiptAccessEntity, ReceiptCodeEntity, ReceiptDeliveryEntity } from './receipt.entities';
import { SEAL_COVERS } from './receipt.seal';
import {
  DEFAULT_PRESENTATION,
  localTime,
  presentationOf,
  RECEIPT_EMAIL_WORDS,
  RECEIPT_LANGS,
  type ReceiptPresentation,
} from './receipt.words';

export const RECEIPT_LIMITS = {
  accessMs: 48 * 3600_000,
  codeValidMs: 10 * 60_000,
  codeResendMs: 60_000,
  codesPerHour: 5,
  codeAttempts: 3,
} as const;

/** The mail sender as receipts use it (modules/mail MailSender). */
export interface ReceiptMailer {
  send(message: {
    to: string;
    subject: string;
    text: string;
    html?: string;
    attachments?: { filename: string; contentType: string; content: Buffer }[];
  }): Promise<{ messageId: string }>;
}

export interface ReceiptDeps {
  ds: DataSource;
  clock: Clock;
  config: Pick<Config, 'hostedUrl' | 'baseUrl'>;
  logger: Logger;
  audit: Pick<AuditService, 'jwks' | 'sealKid' | 'sealPdf'>;
  workflows: Pick<WorkflowService, 'revision'>;
  documents: Pick<DocumentService, 'forSession' | 'bytes'>;
  /** The one decision "this request's browser is the bound one". */
  transport: Pick<SessionTransport, 'bindingOf'>;
  mail?: ReceiptMailer;
}

export type AccessState = 'open' | 'ended' | 'closed';

export interface OriginalView {
  position: number;
  stage: number;
  label: string;
  sha256: string;
  size: number;
  content_type: string;
  url: string;
}

/** What the hosted done/partial screen shows (GraphQL signerReceipt). */
export interface ReceiptState {
  session_status: string;
  environment: 'sandbox' | 'production';
  partial: boolean;
  completed_steps: number;
  total_steps: number;
  access: AccessState;
  /** 48 h after the terminal state; null while the session runs. */
  access_until: string | null;
  pdf_downloaded: boolean;
  can_close: boolean;
  receipt_url: string;
  originals: OriginalView[];
  email: {
    code_sent_to: string | null;
    code_expires_at: string | null;
    resend_available_at: string | null;
    codes_left_this_hour: number;
    sent_to: string[];
  };
}

/** GET /v1/sessions/{id}/receipt. */
export interface ReceiptRead {
  session_id: string;
  status: string;
  partial: boolean;
  access_until: string | null;
  results: StepResultView[];
}

const EMAIL = /^[^\s@<>()",;:\\]{1,64}@[^\s@<>()",;:\\]+\.[^\s@<>()",;:\\]+$/;

export const maskEmail = (email: string): string => {
  const [local = '', domain = ''] = email.split('@');
  return `${local.slice(0, 1)}***@${domain}`;
};

const codeHash = (codeId: string, code: string) => sha256Hex(`${codeId}:${code}`);

interface Loaded {
  s: SessionEntity;
  access: ReceiptAccessEntity | null;
  state: AccessState;
  accessUntil: Date | null;
}

export class ReceiptService {
  constructor(private readonly deps: ReceiptDeps) {}

  // ------------------------------------------------------------------------------------------ access

  /** The session as its bound browser sees it, with the access state; throws for anyone else. */
  private async loadForSigner(sessionId: string, browserToken: string | undefined): Promise<Loaded> {
    const found =
      typeof sessionId === 'string' && /^sess_[0-9a-z]{1,40}$/.test(sessionId)
        ? // sql-lint-allow: session-scope: by primary key (ids are globally unique): a lookup vindex on the id routes it to one shard (the capability id of the receipt page)
          await this.deps.ds.getRepository(SessionEntity).findOneBy({ id: sessionId })
        : null;
    if (!found) throw new AppError('not_found', 'This session link is not valid.');
    const s = await enforceExpiry(this.deps.ds, this.deps.clock, found);
    const binding = this.deps.transport.bindingOf(s, browserToken);
    if (binding === 'other_browser') throw new AppError('session_bound_elsewhere');
    if (binding === 'none') throw new AppError('receipt_not_available', 'The session was not started.');
    const access = await this.deps.ds.getRepository(ReceiptAccessEntity).findOneBy({ sessionId: s.id });
    return { s, access, ...this.accessOf(s, access) };
  }

  private accessOf(
    s: SessionEntity,
    access: ReceiptAccessEntity | null,
  ): { state: AccessState; accessUntil: Date | null } {
    const accessUntil =
      isTerminal(s.status) && s.endedAt ? new Date(s.endedAt.getTime() + RECEIPT_LIMITS.accessMs) : null;
    if (access?.closedAt) return { state: 'closed', accessUntil };
    if (accessUntil && this.deps.clock.now() >= accessUntil) return { state: 'ended', accessUntil };
    return { state: 'open', accessUntil };
  }

  private assertOpen(l: { state: AccessState; accessUntil: Date | null }): void {
    if (l.state === 'closed')
      throw new AppError('receipt_access_closed', 'Online access to this session was closed by the signer.');
    if (l.state === 'ended')
      throw new AppError(
        'receipt_access_ended',
        `Online access ended at ${l.accessUntil?.toISOString()} (48 hours after the session ended).`,
        { extra: { access_until: l.accessUntil?.toISOString() } },
      );
  }

  /** For other signer downloads (SessionTransport.documentFile): refused once access ended or was closed. */
  async assertSignerAccessOpen(s: SessionEntity): Promise<void> {
    const access = await this.deps.ds.getRepository(ReceiptAccessEntity).findOneBy({ sessionId: s.id });
    this.assertOpen(this.accessOf(s, access));
  }

  private async completedRows(sessionId: string): Promise<StepResultEntity[]> {
    // sql-lint-allow: session-scope: by session_id, unique across tenants: routed by a session_id lookup vindex
    return this.deps.ds
      .getRepository(StepResultEntity)
      .find({ where: { sessionId }, order: { stage: 'ASC' } });
  }

  // ------------------------------------------------------------------------------------------ reads

  /** GET /v1/sessions/{id}/receipt: the completed prefix of the results, for the bound browser only. */
  async read(sessionId: string, browserToken: string | undefined): Promise<ReceiptRead> {
    const l = await this.loadForSigner(sessionId, browserToken);
    this.assertOpen(l);
    const rows = await this.completedRows(l.s.id);
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
  async receiptData(s: SessionEntity, presentation?: ReceiptPresentation): Promise<ReceiptData> {
    const rows = await this.completedRows(s.id);
    if (rows.length === 0) throw new AppError('receipt_not_available');
    const rev = toRevisionView(
      await this.deps.workflows.revision(this.deps.ds.manager, s.workflowId, s.workflowRevision),
    );
    const business = await this.deps.ds.getRepository(BusinessEntity).findOneBy({ id: s.businessId });
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
      version: 2,
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
      business: { name: business?.name ?? '' },
      workflow: { id: s.workflowId, name: rev.name, revision: s.workflowRevision },
      steps,
      keys: { keys: jwks.keys.filter((k) => kids.has(k.kid)) },
      jwks_url: `${this.deps.config.baseUrl}/.well-known/service-audit-jwks.json`,
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

  /** The receipt PDF for the bound browser; records the download (the close-access warning reads it). */
  async pdf(
    sessionId: string,
    browserToken: string | undefined,
    presentation?: ReceiptPresentation,
  ): Promise<{ bytes: Uint8Array; filename: string }> {
    const l = await this.loadForSigner(sessionId, browserToken);
    this.assertOpen(l);
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
    const l = await this.loadForSigner(sessionId, browserToken);
    this.assertOpen(l);
    const doc = (await this.originals(l.s)).find((d) => d.position === position);
    if (!doc) throw new AppError('not_found', 'No such signed original in this session.');
    return { doc, bytes: await this.deps.documents.bytes(doc) };
  }

  /** Documents of sign steps that completed (the signed originals). */
  private async originals(s: SessionEntity): Promise<DocumentEntity[]> {
    const done = new Set((await this.completedRows(s.id)).map((r) => r.stage));
    return (await this.deps.documents.forSession(this.deps.ds.manager, s.id)).filter((d) =>
      done.has(d.stage),
    );
  }

  /** The done/partial screen: access, deadline, originals, email flow. Readable also after access ended. */
  async state(sessionId: string, browserToken: string | undefined): Promise<ReceiptState> {
    const l = await this.loadForSigner(sessionId, browserToken);
    const rows = await this.completedRows(l.s.id);
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
      .find({ where: { sessionId: l.s.id }, order: { createdAt: 'ASC' } });
    const base = `/t/sessions/${l.s.id}`;
    return {
      session_status: l.s.status,
      environment: l.s.environment,
      partial: l.s.status !== 'completed',
      completed_steps: rows.length,
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
    const l = await this.loadForSigner(sessionId, browserToken);
    if (l.state === 'closed') return this.state(sessionId, browserToken);
    this.assertOpen(l);
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

  /** Sends a six-digit code to `email`, within the resend delay and the hourly limit (checked in the DB). */
  async requestCode(
    sessionId: string,
    browserToken: string | undefined,
    email: unknown,
    presentation: ReceiptPresentation = DEFAULT_PRESENTATION,
  ): Promise<ReceiptState> {
    if (typeof email !== 'string' || email.length > 254 || !EMAIL.test(email.trim()))
      throw new AppError('validation_failed', 'Enter a valid email address.', { param: 'email' });
    const to = email.trim();
    const l = await this.loadForSigner(sessionId, browserToken);
    this.assertOpen(l);
    if ((await this.completedRows(l.s.id)).length === 0) throw new AppError('receipt_not_available');
    const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
    const id = newId('rcode');
    const now = this.deps.clock.now();
    const expiresAt = new Date(now.getTime() + RECEIPT_LIMITS.codeValidMs);
    await transactionWithRetry(this.deps.ds, async (m) => {
      await lockSessionRow(m, l.s.id);
      const repo = m.getRepository(ReceiptCodeEntity);
      const recent = await repo.find({
        where: {
          sessionId: l.s.id,
          createdAt: MoreThan(new Date(now.getTime() - 3600_000)),
          state: Not('undelivered'),
        },
        order: { createdAt: 'DESC' },
      });
      const last = recent[0];
      if (last && now.getTime() < last.createdAt.getTime() + RECEIPT_LIMITS.codeResendMs)
        throw new AppError('receipt_code_too_soon', undefined, {
          extra: {
            retry_after: Math.ceil(
              (last.createdAt.getTime() + RECEIPT_LIMITS.codeResendMs - now.getTime()) / 1000,
            ),
          },
        });
      if (recent.length >= RECEIPT_LIMITS.codesPerHour) {
        const oldest = recent[recent.length - 1] as ReceiptCodeEntity;
        throw new AppError('receipt_code_limit', undefined, {
          extra: { retry_after: Math.ceil((oldest.createdAt.getTime() + 3600_000 - now.getTime()) / 1000) },
        });
      }
      await m
        .createQueryBuilder()
        .update(ReceiptCodeEntity)
        .set({ state: 'superseded' })
        .where('session_id = :id AND state = :open', { id: l.s.id, open: 'open' })
        .execute();
      await repo.insert({
        id,
        sessionId: l.s.id,
        email: to,
        codeHash: codeHash(id, code),
        attempts: 0,
        state: 'open',
        createdAt: now,
        expiresAt,
      });
    });
    try {
      const words = RECEIPT_EMAIL_WORDS[presentation.lang];
      const business = await this.businessName(l.s);
      await this.mailer().send({
        to,
        subject: words.codeSubject(business, code),
        text: words.codeText(business, code),
      });
    } catch (e) {
      // Nobody received this code: it must not count against the resend delay or the hourly limit, and it
      // can never be used. The signer is told to try again (503 with Retry-After), nothing else changed.
      await this.deps.ds
        .getRepository(ReceiptCodeEntity)
        .update({ id, state: 'open' }, { state: 'undelivered' });
      this.deps.logger.error('receipt code email failed', { session: logTag(l.s.id), error: String(e) });
      throw new AppError(
        'service_unavailable',
        'The email could not be sent right now. Try again in a minute.',
        {
          extra: { retry_after: 60 },
        },
      );
    }
    return this.state(sessionId, browserToken);
  }

  /**
   * Checks the code (single use; voided after a few wrong tries) and authorizes the emailed receipt in the
   * same transaction, then sends it.
   */
  async verifyCodeAndSend(
    sessionId: string,
    browserToken: string | undefined,
    code: unknown,
    presentation?: ReceiptPresentation,
  ): Promise<ReceiptState> {
    if (typeof code !== 'string' || !/^\d{6}$/.test(code.trim()))
      throw new AppError('validation_failed', 'Enter the six-digit code.', { param: 'code' });
    const l = await this.loadForSigner(sessionId, browserToken);
    this.assertOpen(l);
    const now = this.deps.clock.now();
    const outcome = await transactionWithRetry(this.deps.ds, async (m) => {
      await lockSessionRow(m, l.s.id);
      const repo = m.getRepository(ReceiptCodeEntity);
      const open = await repo.findOne({
        where: { sessionId: l.s.id, state: 'open' },
        order: { createdAt: 'DESC' },
      });
      if (!open || open.expiresAt <= now) return { kind: 'expired' as const };
      if (!safeEqual(open.codeHash, codeHash(open.id, code.trim()))) {
        const attempts = open.attempts + 1;
        const voided = attempts >= RECEIPT_LIMITS.codeAttempts;
        await repo.update({ id: open.id }, { attempts, ...(voided ? { state: 'void' as const } : {}) });
        return { kind: 'wrong' as const, left: RECEIPT_LIMITS.codeAttempts - attempts };
      }
      const used = await m
        .createQueryBuilder()
        .update(ReceiptCodeEntity)
        .set({ state: 'used' })
        .where('id = :id AND state = :open', { id: open.id, open: 'open' })
        .execute();
      if (used.affected !== 1) return { kind: 'expired' as const };
      const deliveryId = newId('rdel');
      await m.getRepository(ReceiptDeliveryEntity).insert({
        id: deliveryId,
        sessionId: l.s.id,
        email: open.email,
        state: 'pending',
        linkHash: null,
        createdAt: now,
        sentAt: null,
        // the email, its PDF and any retry by the worker are written in the language of the page that asked
        lang: presentation?.lang ?? null,
        timeZone: presentation?.time_zone ?? null,
      });
      return { kind: 'ok' as const, deliveryId };
    });
    if (outcome.kind === 'expired') throw new AppError('receipt_code_expired');
    if (outcome.kind === 'wrong')
      throw new AppError(
        'receipt_code_invalid',
        outcome.left > 0
          ? `The code is not correct. ${outcome.left} ${outcome.left === 1 ? 'try' : 'tries'} left.`
          : 'The code is not correct and can no longer be used: request a new code.',
        { param: 'code', extra: { attempts_left: outcome.left } },
      );
    // Authorized and committed: a failed send stays queued and the worker retries it (deliverPending), so the
    // signer sees the address as on its way rather than an error for something that will still happen.
    await this.deliver(outcome.deliveryId).catch(() => false);
    return this.state(sessionId, browserToken);
  }

  /**
   * Sends one authorized delivery: mints its receipt-page link (only the hash is stored), renders the PDF
   * and mails it. A failed send leaves it pending for deliverPending(). Closing access after authorization
   * does not stop it (the signer is told so).
   */
  async deliver(deliveryId: string): Promise<boolean> {
    const repo = this.deps.ds.getRepository(ReceiptDeliveryEntity);
    const d = await repo.findOneBy({ id: deliveryId, state: 'pending' });
    if (!d) return false;
    // sql-lint-allow: session-scope: by primary key (ids are globally unique): a lookup vindex on the id routes it to one shard
    const s = await this.deps.ds.getRepository(SessionEntity).findOneBy({ id: d.sessionId });
    if (!s) return false;
    const token = randomToken(32);
    const linkHash = sha256Hex(token);
    // claim: only one sender mints the link and sends
    const claimed = await this.deps.ds
      .createQueryBuilder()
      .update(ReceiptDeliveryEntity)
      .set({ linkHash })
      .where('id = :id AND state = :pending AND link_hash IS NULL', { id: d.id, pending: 'pending' })
      .execute();
    if (claimed.affected !== 1) return false;
    try {
      const presentation = presentationOfDelivery(d);
      const data = await this.receiptData(s, presentation);
      const pdf = Buffer.from(await this.renderPdf(data));
      const link = `${this.deps.config.hostedUrl}/r/${token}`;
      const access = this.accessOf(s, null).accessUntil;
      const words = RECEIPT_EMAIL_WORDS[(presentation ?? DEFAULT_PRESENTATION).lang];
      await this.mailer().send({
        to: d.email,
        subject: words.receiptSubject(data.workflow.name, data.partial),
        text: words.receiptText({
          business: data.business.name,
          workflow: data.workflow.name,
          link,
          until: access ? localTime(access.toISOString(), presentation ?? DEFAULT_PRESENTATION) : null,
        }),
        attachments: [{ filename: receiptFilename(data), contentType: 'application/pdf', content: pdf }],
      });
      await repo.update({ id: d.id }, { state: 'sent', sentAt: this.deps.clock.now() });
      return true;
    } catch (e) {
      await repo.update({ id: d.id }, { linkHash: null });
      this.deps.logger.error('receipt email failed', { session: logTag(s.id), error: String(e) });
      throw e;
    }
  }

  /** Worker pass: sends deliveries left pending by a failed send (bounded batch). */
  async deliverPending(limit = 20): Promise<number> {
    const due = await this.deps.ds.getRepository(ReceiptDeliveryEntity).find({
      where: { state: 'pending', createdAt: LessThan(new Date(this.deps.clock.now().getTime() - 30_000)) },
      order: { createdAt: 'ASC' },
      take: limit,
    });
    // A sender that died between its claim (link minted) and the send leaves the delivery claimed for good:
    // free such a claim once it is clearly not in flight any more (SMTP gives up long before 10 minutes). At
    // worst a very slow sender and the retry both send: a receipt email is delivered at least once.
    const stale = new Date(this.deps.clock.now().getTime() - 10 * 60_000);
    for (const d of due)
      if (d.linkHash && d.createdAt < stale)
        await this.deps.ds
          .createQueryBuilder()
          .update(ReceiptDeliveryEntity)
          .set({ linkHash: null })
          .where('id = :id AND state = :pending AND link_hash = :claim', {
            id: d.id,
            pending: 'pending',
            claim: d.linkHash,
          })
          .execute();
    let sent = 0;
    for (const d of due) if (await this.deliver(d.id).catch(() => false)) sent++;
    return sent;
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
    const l = this.accessOf(s, access);
    this.assertOpen(l);
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

  /** The business's display name, as the receipt shows it (receiptData business.name). */
  private async businessName(s: SessionEntity): Promise<string> {
    return (await this.deps.ds.getRepository(BusinessEntity).findOneBy({ id: s.businessId }))?.name ?? '';
  }

  private mailer(): ReceiptMailer {
    if (!this.deps.mail) throw new AppError('internal_error', 'No mail sender is configured.');
    return this.deps.mail;
  }
}

/** The language and zone stored with a delivery (unknown values: en, UTC); none stored: the default page. */
function presentationOfDelivery(d: ReceiptDeliveryEntity): ReceiptPresentation | undefined {
  return d.lang || d.timeZone ? presentationOf(d.lang, d.timeZone) : undefined;
}

export function receiptFilename(data: ReceiptData): string {
  return `receipt-${data.partial ? 'partial-' : ''}${data.session.id.slice(5, 13)}.pdf`;
}
