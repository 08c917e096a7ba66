// Owns the hosted-page side of a session (internal transport, no stability promise): the status projection
// (no results, no personal data), the explicit start that binds one browser, the wallet request for the
// current step, and the wallet response that completes it. The session id in the path is the capability;
// after start, only the bound browser (cookie hash) may act.
import type { DataSource } from 'typeorm';
import type { Clock } from '../../common/clock';
import { safeEqual } from '../../common/crypto';
import { AppError } from '../../common/errors';
import { newId, randomToken, sha256Hex } from '../../common/ids';
import type { Config } from '../../config/config';
import { lockSessionRow, transactionWithRetry } from '../../db/data-source';
import type { AuditService } from '../audit/audit.service';
import { BusinessEntity } from '../tenancy/business.entity';
import type { PresentationVerifier } from '../verification/presentation-verifier';
import { requestForStep, resultForStep } from '../verification/primitives';
import { DC_API_PROTOCOL as WALLET_PROTOCOL } from '../verification/request';
import { WalletRequestEntity } from '../verification/wallet-request.entity';
import { enqueueEvent } from '../webhook/outbox';
import { toRevisionView, type WorkflowService } from '../workflow/workflow.service';
import type { WorkflowStep } from '../workflow/workflow.steps';
import { SessionEntity } from './session.entity';
import { isTerminal } from './session.machine';
import { stepWindowEnd } from './session.service';
import { applyTransition, enforceExpiry } from './session.state';
import { StepResultEntity } from './step-result.entity';

export interface Projection {
  id: string;
  status: string;
  environment: 'sandbox' | 'production';
  business: { name: string };
  workflow: { name: string };
  steps: { stage: number; primitive: string; claims?: string[]; threshold?: number }[];
  current_stage: number;
  completed_stages: number[];
  expires: string;
  binding: 'none' | 'this_browser' | 'other_browser';
}

export interface Persona {
  id: string;
  label: string;
  description: string;
}

export interface TransportDeps {
  ds: DataSource;
  config: Pick<Config, 'hostedUrl'>;
  clock: Clock;
  workflows: WorkflowService;
  audit: Pick<AuditService, 'recordStep'>;
  verifier: Pick<PresentationVerifier, 'verify'>;
  /** Reference-wallet personas offered on sandbox sessions (none in production). */
  sandboxPersonas?: () => Promise<Persona[]>;
  onEventsQueued?: () => void;
}

export class SessionTransport {
  /** The KB-JWT audience a wallet must use for requests made from the hosted page (DC API style). */
  readonly audience: string;

  constructor(private readonly deps: TransportDeps) {
    this.audience = `origin:${new URL(deps.config.hostedUrl).origin}`;
  }

  async projection(id: string, browserToken: string | undefined): Promise<Projection> {
    const s = await this.open(id);
    return this.project(s, browserToken);
  }

  /** Explicit start from this browser. Returns the projection and the browser token to set as cookie. */
  async start(
    id: string,
    browserToken: string | undefined,
  ): Promise<{ projection: Projection; token: string }> {
    const s = await this.open(id);
    const token = browserToken && /^[\w-]{43}$/.test(browserToken) ? browserToken : randomToken(32);
    if (s.status !== 'created') {
      this.requireBound(s, browserToken);
      return { projection: await this.project(s, token), token };
    }
    const steps = await this.steps(s);
    const now = this.deps.clock.now();
    const first = steps[0];
    const started = await transactionWithRetry(this.deps.ds, async (m) => {
      await lockSessionRow(m, s.id);
      return applyTransition(m, s, 'start', now, {
        bindingHash: sha256Hex(token),
        currentStage: 0,
        stepExpiresAt: first ? stepWindowEnd(first, now, s.expiresAt) : null,
      });
    });
    if (!started) {
      // another browser (or tab) won the start: answer from the persisted state
      const fresh = await this.open(id);
      this.requireBound(fresh, browserToken);
      return { projection: await this.project(fresh, token), token };
    }
    return { projection: await this.project(started, token), token };
  }

  /** A fresh OpenID4VP request (new nonce) for the current step of a started session. */
  async walletRequest(id: string, browserToken: string | undefined) {
    const s = await this.open(id);
    this.requireActive(s, browserToken);
    const step = (await this.steps(s))[s.currentStage];
    if (!step) throw new AppError('session_state_conflict', 'There is no step to run.');
    const nonce = randomToken(32);
    const { request } = requestForStep(step, nonce);
    const now = this.deps.clock.now();
    const row = Object.assign(new WalletRequestEntity(), {
      id: newId('wreq'),
      sessionId: s.id,
      businessId: s.businessId,
      stage: s.currentStage,
      nonce,
      audience: this.audience,
      request: JSON.stringify(request),
      state: 'open',
      createdAt: now,
      expiresAt: s.stepExpiresAt ?? s.expiresAt,
    } satisfies Partial<WalletRequestEntity>);
    await this.deps.ds.getRepository(WalletRequestEntity).insert(row);
    return {
      request_id: row.id,
      request,
      protocol: WALLET_PROTOCOL,
      expires: row.expiresAt.toISOString(),
      sandbox_personas:
        s.environment === 'sandbox' && this.deps.sandboxPersonas ? await this.deps.sandboxPersonas() : null,
    };
  }

  /**
   * Verifies the wallet response against the open request of the current step. Verification runs before any
   * write; then one transaction consumes the request, stores the result, the signed audit record and the
   * outbox events, and moves the session. A refused response changes nothing.
   */
  async submitWalletResponse(id: string, browserToken: string | undefined, body: Record<string, unknown>) {
    const s = await this.open(id);
    this.requireActive(s, browserToken);
    const requestId = body.request_id;
    if (typeof requestId !== 'string')
      throw new AppError('validation_failed', 'request_id is required.', { param: 'request_id' });
    const req = await this.deps.ds
      .getRepository(WalletRequestEntity)
      .findOneBy({ id: requestId, sessionId: s.id, stage: s.currentStage, state: 'open' });
    if (!req)
      throw new AppError('request_not_found', 'This wallet request is unknown, used, or for another step.');
    const now = this.deps.clock.now();
    if (now >= req.expiresAt) throw new AppError('step_window_expired');
    const steps = await this.steps(s);
    const step = steps[s.currentStage] as WorkflowStep;
    const verified = await this.deps.verifier.verify({
      request: JSON.parse(req.request) as Record<string, unknown>,
      expectedNonce: req.nonce,
      expectedAudience: req.audience,
      environment: s.environment,
      response: body.response,
      now,
    });
    const result = resultForStep(step, verified);
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
          protocol: WALLET_PROTOCOL,
          format: verified.format,
          issuer: verified.issuer,
          vct: verified.vct,
          holder_key_thumbprint: verified.holderKeyThumbprint,
          status: verified.statusChecked,
          checks: verified.checks,
        },
        completedAt,
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
        },
        now: completedAt,
      });
      const nextStage = s.currentStage + 1;
      const next = steps[nextStage];
      const moved = step.gate_after
        ? await applyTransition(m, s, 'step_completed_gate', completedAt, {
            currentStage: nextStage,
            stepExpiresAt: null,
          })
        : next
          ? await applyTransition(m, s, 'step_completed_more', completedAt, {
              currentStage: nextStage,
              stepExpiresAt: stepWindowEnd(next, completedAt, s.expiresAt),
            })
          : await applyTransition(m, s, 'step_completed_last', completedAt, { currentStage: nextStage });
      if (!moved)
        throw new AppError('session_state_conflict', 'The session changed while the response was verified.');
      return moved;
    });
    this.deps.onEventsQueued?.();
    return this.project(done, browserToken);
  }

  private async open(id: string): Promise<SessionEntity> {
    const s =
      typeof id === 'string' && id.startsWith('sess_')
        ? await this.deps.ds.getRepository(SessionEntity).findOneBy({ id })
        : null;
    if (!s) throw new AppError('not_found', 'This session link is not valid.');
    return enforceExpiry(this.deps.ds, this.deps.clock, s, this.deps.onEventsQueued);
  }

  private bindingOf(s: SessionEntity, token: string | undefined): Projection['binding'] {
    if (!s.bindingHash) return 'none';
    return token && safeEqual(s.bindingHash, sha256Hex(token)) ? 'this_browser' : 'other_browser';
  }

  private requireBound(s: SessionEntity, token: string | undefined): void {
    if (s.status === 'expired') throw new AppError('session_expired');
    if (this.bindingOf(s, token) !== 'this_browser') {
      if (s.bindingHash) throw new AppError('session_bound_elsewhere');
      throw new AppError('session_state_conflict', 'Start the session first.');
    }
  }

  private requireActive(s: SessionEntity, token: string | undefined): void {
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

  private async project(s: SessionEntity, token: string | undefined): Promise<Projection> {
    const rev = toRevisionView(
      await this.deps.workflows.revision(this.deps.ds.manager, s.workflowId, s.workflowRevision),
    );
    const business = await this.deps.ds.getRepository(BusinessEntity).findOneBy({ id: s.businessId });
    const done = Math.min(s.currentStage, rev.steps.length);
    return {
      id: s.id,
      status: s.status,
      environment: s.environment,
      business: { name: business?.name ?? '' },
      workflow: { name: rev.name },
      steps: rev.steps.map((st, stage) => ({
        stage,
        primitive: st.primitive,
        ...(st.claims ? { claims: st.claims } : {}),
        ...(st.threshold ? { threshold: st.threshold } : {}),
      })),
      current_stage: isTerminal(s.status) ? done : s.currentStage,
      completed_stages: Array.from({ length: done }, (_, i) => i),
      expires: s.expiresAt.toISOString(),
      binding: this.bindingOf(s, token),
    };
  }
}
