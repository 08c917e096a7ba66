// Owns the hosted-page side of a session (internal transport, no stability promise): the status projection
// (no results, no personal data), the explicit start that binds one browser, the wallet request for the
// current step, and the wallet response that completes it. The session id in the path is the capability;
// after start, only the bound browser may act (browser-binding.ts decides which browser that is).
import type { DataSource, EntityManager } from 'typeorm';
import type { Clock } from '../../common/clock';
import { AppError, isAppError } from '../../common/errors';
import { newId, randomToken } from '../../common/ids';
import type { Config } from '../../config/config';
import { lockSessionRow, transactionWithRetry } from '../../db/data-source';
import type { AuditService } from '../audit/audit.service';
import { brandingOf } from '../branding/branding.service';
import type { DocumentEntity } from '../document/document.entity';
import type { DocumentService } from '../document/document.service';
import { type DocumentView, toDocumentView } from '../document/document.service';
import type { EvidenceService } from '../evidence/evidence.service';
import { SessionEventEntity } from '../support/session-event.entity';
import { recordSessionEvent, recordSessionEventOnce } from '../support/session-events';
import { BusinessEntity } from '../tenancy/business.entity';
import { bindingClaimsFor, decideHolderBinding, loadAnchorHolder } from '../verification/holder-binding';
import { annexCSupports } from '../verification/mdoc/annex-c';
import { MDOC_FORMAT } from '../verification/mdoc/mdoc-query';
import type { PresentationVerifier } from '../verification/presentation-verifier';
import {
  auditFactsForStep,
  evidenceForStep,
  requestForStep,
  resultForStep,
} from '../verification/primitives';
import { DC_API_PROTOCOL as WALLET_PROTOCOL } from '../verification/request';
import { sha256HexOfText } from '../verification/transaction-data';
import { WalletRequestEntity } from '../verification/wallet-request.entity';
import { enqueueEvent } from '../webhook/outbox';
import { type ConditionMatch, evaluateConditions, moveAfterStep } from '../workflow/conditions';
import { toRevisionView, type WorkflowService } from '../workflow/workflow.service';
import type { WorkflowStep } from '../workflow/workflow.steps';
import type { BrowserBinding } from './browser-binding';
import { SessionEntity } from './session.entity';
import { isTerminal, MAX_REFUSED_RESPONSES_PER_STEP } from './session.machine';
import { stepWindowEnd } from './session.service';
import { applyTransition, enforceExpiry, rereadSession } from './session.state';
import { protocolOf, type WalletRequestKind, type WalletTransports } from './session.wallet-transports';
import { StepResultEntity } from './step-result.entity';

export interface Projection {
  id: string;
  status: string;
  environment: 'sandbox' | 'production';
  /**
   * name: the branding's display name, else the business name; accent_color: `#rrggbb` when branded;
   * logo_url: the logo's path on this service when one is set.
   */
  business: { name: string; accent_color?: string; logo_url?: string };
  workflow: { name: string };
  steps: {
    stage: number;
    primitive: string;
    claims?: string[];
    threshold?: number;
    /** attestation: the terms shown before the signer approves, and their SHA-256 (hex, UTF-8). */
    terms?: string;
    terms_sha256?: string;
    /** sign: the documents shown before the signer signs (labels and hashes; the bytes download separately). */
    documents?: DocumentView[];
  }[];
  current_stage: number;
  completed_stages: number[];
  expires: string;
  /**
   * The deadline of what the person is doing now (ADR 0029): the step window once a step has started
   * (`deadline_kind: "step"`), else the overall expiry (`"link"`). Absent when nothing can run out (waiting
   * for the business's decision, or ended). `server_time` is the service's clock at this answer, so the page
   * counts down against it, not against a device clock that may be wrong.
   */
  deadline?: string;
  deadline_kind?: 'step' | 'link';
  server_time: string;
  binding: 'none' | 'this_browser' | 'other_browser';
  /** Only once the session ended: where the page offers the way back (never carrying results, ADR 0019). */
  return_url?: string;
  /**
   * In progress, once a wallet answer for the current step was refused: how many more answers the step
   * accepts before the session fails (MAX_REFUSED_RESPONSES_PER_STEP), so the page can say so. A count only.
   */
  tries_left?: number;
}

export interface Persona {
  id: string;
  label: string;
  description: string;
}

export interface TransportDeps {
  ds: DataSource;
  config: Pick<Config, 'hostedUrl' | 'decisionDueHours'>;
  /** Server-issued browser cookies and the one "is this the bound browser" decision. */
  binding: BrowserBinding;
  clock: Clock;
  workflows: WorkflowService;
  audit: Pick<AuditService, 'recordStep'>;
  verifier: Pick<PresentationVerifier, 'verify'>;
  /** Sign-step documents of a session (wallet request, hosted page, download). */
  documents: Pick<DocumentService, 'forSession' | 'bytes'>;
  /** Encrypted evidence of age_verify, sign and attestation steps, written with the completion. */
  evidence: Pick<EvidenceService, 'seal' | 'insert' | 'open'>;
  /** Reference-wallet personas offered on sandbox sessions (none in production), those that can answer `request`. */
  sandboxPersonas?: (request: Record<string, unknown>) => Promise<Persona[]>;
  /** Signed DC API and cross-device requests, and opening encrypted responses (session.wallet-routes.ts). */
  wallets?: Pick<WalletTransports, 'build' | 'openResponse'>;
  onEventsQueued?: () => void;
  /** Signer access to materials (modules/receipt): refuses downloads after the 48 h window or closing. */
  signerAccess?: { assertSignerAccessOpen(s: SessionEntity): Promise<void> };
}

/** Thrown inside a transaction to roll it back when its guarded session write lost. */
class LostTransition extends Error {}

export class SessionTransport {
  /** The KB-JWT audience a wallet must use for requests made from the hosted page (DC API style). */
  readonly audience: string;

  constructor(private readonly deps: TransportDeps) {
    this.audience = `origin:${new URL(deps.config.hostedUrl).origin}`;
  }

  /** The binding decision, for other browser-facing routes of a session (e.g. the signer's receipts). */
  get binding(): BrowserBinding {
    return this.deps.binding;
  }

  /**
   * The status projection. A browser without a valid server-issued cookie gets one here (`issued`, to set as
   * the cookie), so that a later Start binds to a value the browser already holds. `cookie` is the value the
   * browser holds after this answer (its own, or the issued one): the route sets it again, which renews its
   * lifetime on every use (ADR 0028).
   */
  async projection(
    id: string,
    browserCookie: unknown,
  ): Promise<{ projection: Projection; issued?: string; cookie: string }> {
    const s = await this.open(id);
    // support timeline: the first time the link was opened (reloads are not news)
    await recordSessionEventOnce(this.deps.ds.manager, s, { kind: 'opened', at: this.deps.clock.now() });
    const valid = this.deps.binding.verified(browserCookie);
    const issued = valid ? undefined : this.deps.binding.issue();
    const cookie = (valid ?? issued) as string;
    return { projection: await this.project(s, cookie), cookie, ...(issued ? { issued } : {}) };
  }

  /**
   * Explicit start from this browser: binds the session to the browser's server-issued cookie (issued now if
   * it has none; a value the server did not issue is never used). A retried Start whose first answer was lost
   * finds its own binding and succeeds; another browser gets session_bound_elsewhere.
   */
  async start(
    id: string,
    browserCookie: unknown,
  ): Promise<{ projection: Projection; issued?: string; cookie: string }> {
    const s = await this.open(id);
    const valid = this.deps.binding.verified(browserCookie);
    const token = valid ?? this.deps.binding.issue();
    const issued = valid ? undefined : token;
    if (s.status !== 'created') {
      this.requireBound(s, token);
      return { projection: await this.project(s, token), cookie: token, ...(issued ? { issued } : {}) };
    }
    const steps = await this.steps(s);
    const now = this.deps.clock.now();
    const first = steps[0];
    const started = await transactionWithRetry(this.deps.ds, async (m) => {
      await lockSessionRow(m, s.id);
      return applyTransition(m, s, 'start', now, {
        bindingHash: this.deps.binding.bindingHash(s.id, token),
        currentStage: 0,
        stepExpiresAt: first ? stepWindowEnd(first, now, s.expiresAt) : null,
      });
    });
    if (!started) {
      // another browser (or tab) won the start: answer from the persisted state
      const fresh = await this.open(id);
      this.requireBound(fresh, token);
      return { projection: await this.project(fresh, token), cookie: token, ...(issued ? { issued } : {}) };
    }
    return { projection: await this.project(started, token), cookie: token, ...(issued ? { issued } : {}) };
  }

  /**
   * A fresh OpenID4VP request (new nonce) for the current step of a started session: unsigned for the DC API
   * (`dc_api`, the default), or signed with a per-request encryption key (`dc_api_signed`, `cross_device`).
   */
  async walletRequest(id: string, browserToken: string | undefined, kind: WalletRequestKind = 'dc_api') {
    const s = await this.open(id);
    this.requireActive(s, browserToken);
    const steps = await this.steps(s);
    const step = steps[s.currentStage];
    if (!step) throw new AppError('session_state_conflict', 'There is no step to run.');
    if (kind === 'org_iso_mdoc' && !annexCSupports(step.primitive)) {
      throw new AppError(
        'protocol_not_offered',
        `A ${step.primitive} step is not offered over org-iso-mdoc: Annex C cannot bind its transaction data.`,
      );
    }
    const nonce = randomToken(32);
    const documents =
      step.primitive === 'sign'
        ? (await this.deps.documents.forSession(this.deps.ds.manager, s.id, s.currentStage)).map(
            toDocumentView,
          )
        : undefined;
    if (documents) {
      // the wallet is asked to sign only what the page has shown to the end (ADR 0029)
      const shown = await this.shownToEnd(s, s.currentStage);
      const missing = documents.filter((d) => !shown.some((x) => x.position === d.position));
      if (missing.length > 0)
        throw new AppError(
          'documents_not_shown',
          `Show every document of this step to the end first; not yet shown: ${missing.map((d) => d.position).join(', ')}.`,
        );
    }
    const { request } = requestForStep(step, nonce, {
      documents,
      bindingClaims: bindingClaimsFor(steps, s.currentStage),
    });
    if (kind === 'org_iso_mdoc' && !asksForMdoc(request)) {
      // e.g. age_verify above 99: ISO age_over_NN has two digits, so only the SD-JWT VC can answer
      throw new AppError(
        'protocol_not_offered',
        'This step asks for no mdoc, so it is not offered over org-iso-mdoc.',
      );
    }
    const now = this.deps.clock.now();
    const requestId = newId('wreq');
    const expiresAt = s.stepExpiresAt ?? s.expiresAt;
    if (kind !== 'dc_api' && !this.deps.wallets) throw new AppError('not_found', 'No such wallet transport.');
    const signed =
      kind === 'dc_api'
        ? null
        : await this.deps.wallets?.build(kind, {
            requestId,
            base: request,
            now,
            expiresAt,
            business: { id: s.businessId, environment: s.environment },
          });
    const row = Object.assign(new WalletRequestEntity(), {
      id: requestId,
      sessionId: s.id,
      businessId: s.businessId,
      stage: s.currentStage,
      nonce,
      audience: signed?.audience ?? this.audience,
      request: JSON.stringify(signed?.stored ?? request),
      state: 'open',
      createdAt: now,
      expiresAt,
      responseMode: signed?.responseMode ?? null,
      requestObject: signed?.requestObject ?? null,
      responseKey: signed?.responseKey ?? null,
    } satisfies Partial<WalletRequestEntity>);
    await transactionWithRetry(this.deps.ds, async (m) => {
      await m.getRepository(WalletRequestEntity).insert(row);
      await recordSessionEvent(m, s, {
        kind: 'wallet_request',
        at: now,
        stage: row.stage,
        detail: { request_id: row.id, transport: kind },
      });
    });
    return {
      request_id: row.id,
      ...(signed ? signed.forPage : { request, protocol: WALLET_PROTOCOL }),
      expires: row.expiresAt.toISOString(),
      sandbox_personas:
        s.environment === 'sandbox' && this.deps.sandboxPersonas
          ? await this.deps.sandboxPersonas(request)
          : null,
    };
  }

  /**
   * Verifies the wallet response against the open request of the current step. Verification runs before any
   * write; then one transaction consumes the request, stores the result, the signed audit record and the
   * outbox events, and moves the session. A refused response writes nothing of the step; it burns its request
   * and counts toward the failure policy (refuse()).
   */
  async submitWalletResponse(id: string, browserToken: string | undefined, body: Record<string, unknown>) {
    const s = await this.open(id);
    this.requireActive(s, browserToken);
    const requestId = body.request_id;
    if (typeof requestId !== 'string')
      throw new AppError('validation_failed', 'request_id is required.', { param: 'request_id' });
    // sql-lint-allow: session-scope: by primary key (ids are globally unique): a lookup vindex on the id routes it to one shard
    const req = await this.deps.ds
      .getRepository(WalletRequestEntity)
      .findOneBy({ id: requestId, sessionId: s.id, stage: s.currentStage, state: 'open' });
    if (!req)
      throw new AppError('request_not_found', 'This wallet request is unknown, used, or for another step.');
    return this.project(await this.completeWalletRequest(s, req, body.response), browserToken);
  }

  /**
   * A wallet answering one of our requests directly (cross-device direct_post.jwt to response_uri): the
   * unguessable request id is the capability, there is no browser. Completes the step exactly like a
   * hosted submission.
   */
  async submitDirectWalletResponse(requestId: string, answer: unknown): Promise<void> {
    // sql-lint-allow: session-scope: by primary key (ids are globally unique): a lookup vindex on the id routes it to one shard
    const req = await this.deps.ds
      .getRepository(WalletRequestEntity)
      .findOneBy({ id: requestId, state: 'open' });
    if (req?.responseMode !== 'direct_post.jwt')
      throw new AppError('request_not_found', 'This wallet request is unknown or already used.');
    const s = await this.open(req.sessionId);
    if (s.status === 'expired') throw new AppError('session_expired');
    if (s.status !== 'in_progress' || s.currentStage !== req.stage)
      throw new AppError('request_not_found', 'This wallet request is no longer waiting for an answer.');
    await this.completeWalletRequest(s, req, answer);
  }

  /** The one completion path: verify the answer to `req`, then complete the step (or refuse). */
  private async completeWalletRequest(
    s: SessionEntity,
    req: WalletRequestEntity,
    answer: unknown,
  ): Promise<SessionEntity> {
    const now = this.deps.clock.now();
    if (now >= req.expiresAt) throw new AppError('step_window_expired');
    const steps = await this.steps(s);
    const step = steps[s.currentStage] as WorkflowStep;
    let verified: Awaited<ReturnType<PresentationVerifier['verify']>>;
    let result: ReturnType<typeof resultForStep>;
    try {
      verified = await this.deps.verifier.verify({
        request: JSON.parse(req.request) as Record<string, unknown>,
        expectedNonce: req.nonce,
        expectedAudience: req.audience,
        environment: s.environment,
        // encrypted modes (dc_api.jwt, direct_post.jwt): decrypted with the request's key, inside the
        // refusal policy like any other bad answer
        response: this.deps.wallets ? await this.deps.wallets.openResponse(req, answer) : answer,
        now,
      });
      result = resultForStep(step, verified);
      // one person across the steps (ADR 0026): holder_mismatch is a refusal like any other
      result = { ...result, holder_binding: await this.holderBinding(s, steps, verified) };
    } catch (e) {
      if (isAppError(e) && e.status === 422) throw await this.refuse(s, req, e);
      throw e;
    }
    // The full presentation of age_verify, sign and attestation, encrypted before the transaction (KMS call)
    // and inserted inside it: the evidence exists if and only if the step completed.
    const evidence = evidenceForStep(step, verified);
    // sign: the audit record says which documents the page showed to the end, and when (never "read")
    const shownToEnd = step.primitive === 'sign' ? await this.shownToEnd(s, s.currentStage) : undefined;
    const sealed = evidence
      ? await this.deps.evidence.seal({
          sessionId: s.id,
          businessId: s.businessId,
          stage: s.currentStage,
          kind: 'presentation',
          plaintext: evidence,
          now,
        })
      : null;
    // the workflow's conditions on this result decide what follows (ADR 0031)
    const condition = evaluateConditions(step, result);
    const done = await transactionWithRetry(this.deps.ds, async (m) => {
      await lockSessionRow(m, s.id);
      const consumed = await m
        .createQueryBuilder()
        .update(WalletRequestEntity)
        .set({ state: 'consumed' })
        .where('id = :id AND state = :open', { id: req.id, open: 'open' })
        .execute();
      if (consumed.affected !== 1)
        throw new AppError('request_not_found', 'This wallet response was already used.');
      const completedAt = this.deps.clock.now();
      const { auditId } = await this.deps.audit.recordStep(m, {
        sessionId: s.id,
        businessId: s.businessId,
        environment: s.environment,
        workflowId: s.workflowId,
        workflowRevision: s.workflowRevision,
        stage: s.currentStage,
        primitive: step.primitive,
        result,
        verification: {
          request_id: req.id,
          nonce: req.nonce,
          audience: req.audience,
          protocol: protocolOf(req.responseMode),
          format: verified.format,
          issuer: verified.issuer,
          vct: verified.vct,
          holder_key_thumbprint: verified.holderKeyThumbprint,
          holder_binding: result.holder_binding,
          status: verified.statusChecked,
          checks: verified.checks,
          ...auditFactsForStep(step, verified),
          ...(shownToEnd ? { documents_shown_to_end: shownToEnd } : {}),
          ...(sealed
            ? {
                evidence: {
                  alg: sealed.row.alg,
                  kid: sealed.row.kid,
                  plaintext_sha256: sealed.row.plaintextSha256,
                },
              }
            : {}),
        },
        ...(condition ? { condition: { ...condition } } : {}),
        completedAt,
      });
      if (sealed) await this.deps.evidence.insert(m, sealed);
      await recordSessionEvent(m, s, {
        kind: 'wallet_response_accepted',
        at: completedAt,
        stage: s.currentStage,
        detail: { request_id: req.id, audit_id: auditId, format: verified.format },
      });
      await m.getRepository(StepResultEntity).insert({
        sessionId: s.id,
        stage: s.currentStage,
        businessId: s.businessId,
        primitive: step.primitive,
        result: JSON.stringify(result),
        auditId,
        completedAt,
      });
      await enqueueEvent(m, {
        businessId: s.businessId,
        environment: s.environment,
        sessionId: s.id,
        event: 'step.completed',
        data: {
          session_id: s.id,
          stage: s.currentStage,
          primitive: step.primitive,
          audit_id: auditId,
          ...result,
          ...(condition ? { condition } : {}),
        },
        now: completedAt,
      });
      const moved = await this.advance(m, s, steps, condition, completedAt);
      // stopped, expired (or its window passed while verifying) meanwhile: roll back, nothing is written
      if (!moved) throw new LostTransition();
      return moved;
    }).catch((e: unknown) => {
      if (e instanceof LostTransition) return null;
      throw e;
    });
    if (!done) {
      const fresh = await rereadSession(this.deps.ds, this.deps.clock, s.id, this.deps.onEventsQueued);
      if (fresh?.status === 'expired') throw new AppError('session_expired');
      throw new AppError('session_state_conflict', 'The session changed while the response was verified.');
    }
    this.deps.onEventsQueued?.();
    return done;
  }

  /** Who presented this step, bound to the first step's holder or refused with holder_mismatch (holder-binding.ts). */
  private async holderBinding(
    s: SessionEntity,
    steps: WorkflowStep[],
    verified: Awaited<ReturnType<PresentationVerifier['verify']>>,
  ) {
    return decideHolderBinding({
      steps,
      stage: s.currentStage,
      anchor:
        s.currentStage === 0
          ? null
          : await loadAnchorHolder(this.deps.ds.manager, this.deps.evidence, s.id, steps),
      holderKeyThumbprint: verified.holderKeyThumbprint,
      claims: verified.claims,
    });
  }

  /**
   * Moves the session after its current step completed, in the completion's transaction: the workflow's
   * condition that matched (if any) first, then `gate_after`, then the next step or the end (moveAfterStep).
   * A matched condition is a timeline entry of its own. Null when the guarded write lost.
   */
  private async advance(
    m: EntityManager,
    s: SessionEntity,
    steps: WorkflowStep[],
    condition: ConditionMatch | null,
    at: Date,
  ): Promise<SessionEntity | null> {
    const stage = s.currentStage;
    if (condition)
      await recordSessionEvent(m, s, {
        kind: 'condition_matched',
        at,
        stage,
        code: condition.outcome,
        detail: { ...condition },
      });
    const move = moveAfterStep(steps, stage, condition);
    const ended = condition ? { stage, index: condition.index } : null;
    switch (move.kind) {
      case 'fail':
        return applyTransition(m, s, 'fail', at, {
          currentStage: stage + 1,
          failure: { code: move.reason, stage, window: null, refused_responses: null },
          ...(ended ? { condition: { ...ended, outcome: 'fail' } } : {}),
        });
      case 'complete':
        return applyTransition(m, s, 'step_completed_last', at, {
          currentStage: stage + 1,
          ...(ended ? { condition: { ...ended, outcome: 'complete' } } : {}),
        });
      case 'gate':
        return applyTransition(m, s, 'step_completed_gate', at, {
          currentStage: move.nextStage,
          stepExpiresAt: null,
          // the business's decision is due after DECISION_DUE_HOURS; one reminder per gate (ADR 0008)
          decisionDueAt: new Date(at.getTime() + this.deps.config.decisionDueHours * 3600_000),
          decisionRemindedAt: null,
        });
      case 'next':
        return applyTransition(m, s, 'step_completed_more', at, {
          currentStage: move.nextStage,
          stepExpiresAt: stepWindowEnd(steps[move.nextStage] as WorkflowStep, at, s.expiresAt),
        });
    }
  }

  /**
   * Failure policy (README "Sessions and states"): a refused response burns its single-use request; the
   * MAX_REFUSED_RESPONSES_PER_STEP-th refusal for the same step fails the session, with session.failed queued in
   * the same transaction. Answers the verification error itself, so the wallet still learns why.
   */
  private async refuse(s: SessionEntity, req: WalletRequestEntity, refusal: AppError): Promise<AppError> {
    const failed = await transactionWithRetry(this.deps.ds, async (m) => {
      await lockSessionRow(m, s.id);
      const burned = await m
        .createQueryBuilder()
        .update(WalletRequestEntity)
        .set({ state: 'refused' })
        .where('id = :id AND state = :open', { id: req.id, open: 'open' })
        .execute();
      if (burned.affected !== 1) return null;
      const now = this.deps.clock.now();
      await recordSessionEvent(m, s, {
        kind: 'wallet_response_refused',
        at: now,
        stage: req.stage,
        code: refusal.code,
        detail: { request_id: req.id },
      });
      // sql-lint-allow: session-scope: by session_id, unique across tenants: routed by a session_id lookup vindex
      const refusals = await m
        .getRepository(WalletRequestEntity)
        .countBy({ sessionId: s.id, stage: req.stage, state: 'refused' });
      if (refusals < MAX_REFUSED_RESPONSES_PER_STEP) return null;
      return applyTransition(m, s, 'fail', now, {
        failure: { code: refusal.code, stage: req.stage, window: null, refused_responses: refusals },
      });
    });
    if (!failed) return refusal;
    this.deps.onEventsQueued?.();
    return new AppError(
      refusal.code,
      `${refusal.message} The session has failed after ${MAX_REFUSED_RESPONSES_PER_STEP} refused responses.`,
      { param: refusal.param, extra: { ...refusal.extra, session_status: 'failed' } },
    );
  }

  /**
   * The exact original bytes of a document of this session, for the bound browser only (also after the
   * session ended, until it expires from access). Re-hashed on read: a changed blob is never served.
   */
  async documentFile(
    id: string,
    browserToken: string | undefined,
    position: number,
  ): Promise<{ doc: DocumentEntity; bytes: Buffer }> {
    const s = await this.open(id);
    this.requireBound(s, browserToken);
    await this.deps.signerAccess?.assertSignerAccessOpen(s);
    const doc = Number.isInteger(position)
      ? (await this.deps.documents.forSession(this.deps.ds.manager, s.id)).find(
          (d) => d.position === position,
        )
      : undefined;
    if (!doc) throw new AppError('not_found', 'No such document in this session.');
    return { doc, bytes: await this.deps.documents.bytes(doc) };
  }

  /**
   * The hosted page showed document `position` of the current sign step to its end (last page or end of
   * text scrolled into view). Recorded once per stage and document in the timeline as
   * `document_shown_to_end`; only the bound browser of a running session may say so. Returns the positions
   * of this step recorded so far.
   */
  async documentShown(
    id: string,
    browserToken: string | undefined,
    position: number,
  ): Promise<{ shown_to_end: number[]; all_shown: boolean }> {
    const s = await this.open(id);
    this.requireActive(s, browserToken);
    const step = (await this.steps(s))[s.currentStage];
    const docs =
      step?.primitive === 'sign'
        ? await this.deps.documents.forSession(this.deps.ds.manager, s.id, s.currentStage)
        : [];
    const doc = docs.find((d) => d.position === position);
    if (!doc) throw new AppError('not_found', 'No such document in the current step.');
    await recordSessionEventOnce(
      this.deps.ds.manager,
      s,
      {
        kind: 'document_shown_to_end',
        at: this.deps.clock.now(),
        stage: s.currentStage,
        detail: { position: doc.position, sha256: doc.sha256 },
      },
      `${s.currentStage}:${doc.position}`,
    );
    const shown = (await this.shownToEnd(s, s.currentStage)).map((x) => x.position);
    return { shown_to_end: shown, all_shown: docs.every((d) => shown.includes(d.position)) };
  }

  /** The documents of `stage` the page showed to the end, from the timeline (first record of each). */
  private async shownToEnd(
    s: SessionEntity,
    stage: number,
  ): Promise<{ position: number; sha256: string; at: string }[]> {
    // sql-lint-allow: session-scope: by session_id, unique across tenants: routed by a session_id lookup vindex
    const rows = await this.deps.ds.getRepository(SessionEventEntity).find({
      where: { sessionId: s.id, kind: 'document_shown_to_end', stage },
      order: { at: 'ASC', orderKey: 'ASC' },
    });
    const out: { position: number; sha256: string; at: string }[] = [];
    for (const r of rows) {
      const d = JSON.parse(r.detail ?? '{}') as { position?: unknown; sha256?: unknown };
      if (typeof d.position !== 'number' || typeof d.sha256 !== 'string') continue;
      if (out.some((x) => x.position === d.position)) continue;
      out.push({ position: d.position, sha256: d.sha256, at: r.at.toISOString() });
    }
    return out.sort((a, b) => a.position - b.position);
  }

  private async open(id: string): Promise<SessionEntity> {
    const s =
      typeof id === 'string' && id.startsWith('sess_')
        ? // sql-lint-allow: session-scope: by primary key (ids are globally unique): a lookup vindex on the id routes it to one shard (the capability id of the hosted page)
          await this.deps.ds.getRepository(SessionEntity).findOneBy({ id })
        : null;
    if (!s) throw new AppError('not_found', 'This session link is not valid.');
    return enforceExpiry(this.deps.ds, this.deps.clock, s, this.deps.onEventsQueued);
  }

  /** The one decision "this request's browser is the bound one" (also used by modules/receipt). */
  bindingOf(s: SessionEntity, token: unknown): Projection['binding'] {
    if (!s.bindingHash) return 'none';
    return this.deps.binding.isBoundBrowser(s, token) ? 'this_browser' : 'other_browser';
  }

  private requireBound(s: SessionEntity, token: unknown): void {
    if (s.status === 'expired') throw new AppError('session_expired');
    if (this.bindingOf(s, token) !== 'this_browser') {
      if (s.bindingHash) throw new AppError('session_bound_elsewhere');
      throw new AppError('session_state_conflict', 'Start the session first.');
    }
  }

  private requireActive(s: SessionEntity, token: unknown): void {
    this.requireBound(s, token);
    if (s.status !== 'in_progress')
      throw new AppError(
        'session_state_conflict',
        `The session is ${s.status}; no step is waiting for a wallet.`,
      );
  }

  private async steps(s: SessionEntity): Promise<WorkflowStep[]> {
    return toRevisionView(
      await this.deps.workflows.revision(this.deps.ds.manager, s.workflowId, s.workflowRevision),
    ).steps;
  }

  /**
   * The stages that completed before `done`: every one, unless a condition of the workflow can skip steps
   * (ADR 0031); then the stages that have a result, so a skipped step is not shown as done.
   */
  private async completedStages(s: SessionEntity, steps: WorkflowStep[], done: number): Promise<number[]> {
    if (!steps.some((st) => st.conditions?.some((c) => c.outcome === 'skip')))
      return Array.from({ length: done }, (_, i) => i);
    // sql-lint-allow: session-scope: by session_id, unique across tenants: routed by a session_id lookup vindex
    const rows = await this.deps.ds
      .getRepository(StepResultEntity)
      .find({ where: { sessionId: s.id }, select: { stage: true }, order: { stage: 'ASC' } });
    return rows.map((r) => r.stage).filter((stage) => stage < done);
  }

  private async project(s: SessionEntity, token: unknown): Promise<Projection> {
    const rev = toRevisionView(
      await this.deps.workflows.revision(this.deps.ds.manager, s.workflowId, s.workflowRevision),
    );
    const business = await this.deps.ds.getRepository(BusinessEntity).findOneBy({ id: s.businessId });
    const brand = await brandingOf(this.deps.ds.manager, s.businessId, s.environment);
    const done = Math.min(s.currentStage, rev.steps.length);
    const documents = rev.steps.some((st) => st.primitive === 'sign')
      ? await this.deps.documents.forSession(this.deps.ds.manager, s.id)
      : [];
    return {
      id: s.id,
      status: s.status,
      environment: s.environment,
      business: {
        name: brand.displayName ?? business?.name ?? '',
        ...(brand.accentColor ? { accent_color: brand.accentColor } : {}),
        ...(brand.logoUrl ? { logo_url: brand.logoUrl } : {}),
      },
      workflow: { name: rev.name },
      steps: rev.steps.map((st, stage) => ({
        stage,
        primitive: st.primitive,
        ...(st.claims ? { claims: st.claims } : {}),
        ...(st.threshold ? { threshold: st.threshold } : {}),
        ...(st.terms !== undefined ? { terms: st.terms, terms_sha256: sha256HexOfText(st.terms) } : {}),
        ...(st.primitive === 'sign'
          ? { documents: documents.filter((d) => d.stage === stage).map(toDocumentView) }
          : {}),
      })),
      current_stage: isTerminal(s.status) ? done : s.currentStage,
      completed_stages: await this.completedStages(s, rev.steps, done),
      expires: s.expiresAt.toISOString(),
      ...deadlineOf(s),
      server_time: this.deps.clock.now().toISOString(),
      binding: this.bindingOf(s, token),
      ...(isTerminal(s.status) && s.returnUrl ? { return_url: s.returnUrl } : {}),
      ...(await this.triesLeft(s)),
    };
  }

  /** Refused answers for the running step, as the tries the page may still offer (none before a refusal). */
  private async triesLeft(s: SessionEntity): Promise<Pick<Projection, 'tries_left'>> {
    if (s.status !== 'in_progress') return {};
    // sql-lint-allow: session-scope: by session_id, unique across tenants: routed by a session_id lookup vindex
    const refused = await this.deps.ds
      .getRepository(WalletRequestEntity)
      .countBy({ sessionId: s.id, stage: s.currentStage, state: 'refused' });
    return refused > 0 ? { tries_left: Math.max(0, MAX_REFUSED_RESPONSES_PER_STEP - refused) } : {};
  }
}

/** The deadline the person faces now: the running step's window, else the link's expiry (ADR 0029). */
function deadlineOf(s: SessionEntity): Pick<Projection, 'deadline' | 'deadline_kind'> {
  if (s.status === 'in_progress' && s.stepExpiresAt)
    return { deadline: s.stepExpiresAt.toISOString(), deadline_kind: 'step' };
  if (s.status === 'created' || s.status === 'in_progress')
    return { deadline: s.expiresAt.toISOString(), deadline_kind: 'link' };
  return {};
}

/** Whether a step's request offers an mso_mdoc credential query (what Annex C can ask for). */
const asksForMdoc = (request: Record<string, unknown>): boolean =>
  ((request.dcql_query as { credentials?: { format?: unknown }[] } | undefined)?.credentials ?? []).some(
    (c) => c.format === MDOC_FORMAT,
  );
