// Owns completing a step from a wallet answer: verify first (no write), then one transition (session.transition.ts)
// that consumes the wallet request and writes the signed audit record, the evidence, the result, the
// step.completed event and the move the workflow decides (next step, gate, end, or a condition's outcome).
// A refused answer burns its single-use request and counts toward the failure policy.
import type { DataSource } from 'typeorm';
import type { Clock } from '../../common/clock';
import { AppError, isAppError } from '../../common/errors';
import type { Config } from '../../config/config';
import { insertRowAtCommit, sql } from '../../db/fast-sql';
import type { AuditService } from '../audit/audit.service';
import type { EvidenceService } from '../evidence/evidence.service';
import { SessionEntity } from '../session/session.entity';
import { stepCompleted } from '../session/session.events';
import { stepWindowEnd } from '../session/session.input';
import { MAX_REFUSED_RESPONSES_PER_STEP } from '../session/session.machine';
import type { KeptRead, SessionTransitions, TransitionTx } from '../session/session.transition';
import { StepResultEntity } from '../session/step-result.entity';
import type { PresentationVerifier } from '../verification/presentation-verifier';
import { stampGuard } from '../verification/trust-version';
import { WalletRequestEntity } from '../verification/wallet-request.entity';
import { type ConditionMatch, evaluateConditions, moveAfterStep } from '../workflow/conditions';
import { PRIMITIVE_SPECS } from '../workflow/primitives';
import {
  auditFactsForStep,
  auditStatusForStep,
  evidenceForStep,
  resultForStep,
} from '../workflow/primitives/for-step';
import { routeScope } from '../workflow/route-scope';
import type { WorkflowStep } from '../workflow/workflow.steps';
import { ANCHOR_STAGE, decideHolderBinding, loadAnchorHolder } from './holder-binding';
import { StaleRow, staleRow } from './session-row-cache';
import { protocolOf, type WalletTransports } from './signer.wallet-transports';

export interface CompletionDeps {
  ds: DataSource;
  clock: Clock;
  config: Pick<Config, 'decisionDueHours'>;
  transitions: SessionTransitions;
  audit: Pick<AuditService, 'recordStep'>;
  verifier: Pick<PresentationVerifier, 'verify'>;
  evidence: Pick<EvidenceService, 'seal' | 'insert' | 'open'>;
  wallets?: Pick<WalletTransports, 'openResponse'>;
}

type Verified = Awaited<ReturnType<PresentationVerifier['verify']>>;

/** The documents of a sign step the page showed to the end (from the timeline), for the audit record. */
export type ShownToEnd = { position: number; sha256: string; at: string }[];

/** The answer to a wallet response whose request was used meanwhile (a replay, or a concurrent answer). */
const usedRequest = () => new AppError('request_not_found', 'This wallet response was already used.');

export class StepCompletion {
  constructor(private readonly deps: CompletionDeps) {}

  /** Verify the answer to `req` for the current step of `s`, then complete the step (or refuse). */
  async complete(
    s: SessionEntity,
    steps: WorkflowStep[],
    req: WalletRequestEntity,
    answer: unknown,
    /** sign: the documents the page showed to the end (the caller's read of the timeline), as data. */
    shown: ShownToEnd | undefined,
    /** The trust stamp read with the session (ADR 0063); undefined: the trust is read. */
    trustStamp?: string,
    /** The page's read, sent with the completion's COMMIT (UnitOptions.readWithCommit); not for a refusal. */
    readWithCommit?: KeptRead,
    /**
     * `s` and `req` are this node's cached rows (session-row-cache.ts, ADR 0067): the completion may only win
     * its guarded write, which then also checks the trust stamp, or answer "already used" when it lost to a use
     * of its request; a refusal or any other loss throws StaleRow and writes nothing, for the caller to run
     * again from a fresh read.
     */
    cached = false,
  ): Promise<SessionEntity> {
    const now = this.deps.clock.now();
    if (now >= req.expiresAt) throw cached ? new StaleRow() : new AppError('step_window_expired');
    const step = steps[s.currentStage] as WorkflowStep;
    let verified: Verified;
    let result: ReturnType<typeof resultForStep>;
    try {
      verified = await this.deps.verifier.verify({
        request: JSON.parse(req.request) as Record<string, unknown>,
        expectedNonce: req.nonce,
        expectedAudience: req.audience,
        environment: s.environment,
        // the routes whose issuer trust may validate this step's credential (ADR 0036), read inside the trust
        // read (ADR 0058 amendment), or answered from the trust stores' caches at the same stamp (ADR 0063)
        routes: routeScope(this.deps.ds, step, s.environment, trustStamp),
        // encrypted modes (dc_api.jwt, direct_post.jwt): decrypted with the request's key, inside the
        // refusal policy like any other bad answer
        response: this.deps.wallets ? await this.deps.wallets.openResponse(req, answer) : answer,
        now,
      });
      result = resultForStep(step, verified);
      // one person across the steps (ADR 0026): holder_mismatch is a refusal like any other
      result = { ...result, holder_binding: await this.holderBinding(s, steps, verified) };
    } catch (e) {
      if (isAppError(e) && e.status === 422) {
        if (cached) throw new StaleRow();
        throw await this.refuse(s, req, e);
      }
      throw e;
    }
    // The full presentation of age_verify, sign and attestation, encrypted before the transaction (KMS call)
    // and inserted inside it: the evidence exists if and only if the step completed.
    const evidence = evidenceForStep(step, verified);
    // sign: the audit record says which documents the page showed to the end, and when (never "read")
    const shownToEnd = PRIMITIVE_SPECS[step.primitive].needsDocuments ? shown : undefined;
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
    const unit = this.deps.transitions.run(
      s,
      async (tx) => {
        const { m } = tx;
        // the request's guarded consume (fast-sql.ts, ADR 0045). On MySQL it is written by the move's own
        // guarded UPDATE, both guards in one statement (ADR 0058 amendment 3): a request no longer open stops
        // the batch on the server and the unit rolls back; the recheck below then answers "already used" (the
        // request is not open). The audit record, the evidence and the result go with the COMMIT, after it: a
        // completion that lost the consume or the move never reaches a duplicate key. Elsewhere it is written
        // now and a used request is refused at once.
        await tx.useUp({
          table: 'wallet_request',
          id: req.id,
          column: 'state',
          from: 'open',
          to: 'consumed',
          // from a cached row the guard also holds the trust stamp: its loss may be the stamp's, not a use
          ...(cached && trustStamp !== undefined
            ? { also: stampGuard(trustStamp), lost: () => new StaleRow() }
            : { lost: usedRequest }),
        });
        const completedAt = tx.now;
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
            // the binding as a fact; the holder key only where the result carries it (ADR 0046)
            holder_binding: result.holder_binding,
            status: auditStatusForStep(step, verified),
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
        // the first step's holder key, for binding the later steps; internal, cleared at the end (ADR 0046)
        // written with the move's guarded UPDATE (cleared there when the session ends)
        if (s.currentStage === 0) tx.carry({ anchorHolderKey: verified.holderKeyThumbprint });
        await tx.timeline({
          kind: 'wallet_response_accepted',
          at: completedAt,
          stage: s.currentStage,
          detail: { request_id: req.id, audit_id: auditId, format: verified.format },
        });
        // plain INSERT (fast-sql.ts), every column set (ADR 0045); sent with the COMMIT (ADR 0058 amendment)
        await insertRowAtCommit(
          m.dataSource,
          StepResultEntity,
          Object.assign(new StepResultEntity(), {
            sessionId: s.id,
            stage: s.currentStage,
            businessId: s.businessId,
            primitive: step.primitive,
            result: JSON.stringify(result),
            auditId,
            completedAt,
          }),
          m,
        );
        await tx.emit(
          stepCompleted(
            s,
            { stage: s.currentStage, primitive: step.primitive, auditId, result, condition },
            completedAt,
          ),
        );
        // stopped, expired (or its window passed while verifying) meanwhile: the move loses, nothing is written
        return this.advance(tx, steps, condition);
      },
      cached
        ? staleRow
        : async (fresh) => {
            // the consume lost first (a kept consume stops its batch on the server, ADR 0058 amendment 3): a request
            // is never open again once used, so one that is not open now was not open then
            if (!(await this.stillOpen(req.id))) throw usedRequest();
            if (fresh.status === 'expired') throw new AppError('session_expired');
            return undefined;
          },
      // decided by guarded writes only (the request's consuming UPDATE, the move): no row lock first
      { lock: false, readWithCommit },
    );
    if (!cached) return unit;
    try {
      return await unit;
    } catch (e) {
      // from cached rows: a used request answers as every lost completion does; anything else, the fresh read
      if (e instanceof StaleRow && !(await this.stillOpen(req.id))) throw usedRequest();
      throw e;
    }
  }

  /** Whether wallet request `id` is still open (a lost completion's recheck). */
  private async stillOpen(id: string): Promise<boolean> {
    const rows = await sql<{ state: unknown }[]>(
      this.deps.ds,
      // sql-lint-allow: session-scope: by primary key (ids are globally unique): a lookup vindex on the id routes it to one shard
      'SELECT state FROM wallet_request WHERE id = ?',
      [id],
    );
    return rows[0] !== undefined && String(rows[0].state) === 'open';
  }

  /** Who presented this step, bound to the first step's holder or refused with holder_mismatch (holder-binding.ts). */
  private async holderBinding(s: SessionEntity, steps: WorkflowStep[], verified: Verified) {
    const m = this.deps.ds.manager;
    // the anchor step's stored result, read here (completion owns step_result) and handed to holder-binding.ts
    const anchorRow =
      s.currentStage === ANCHOR_STAGE
        ? null
        : // sql-lint-allow: session-scope: by (session_id, stage), session ids are unique across tenants (lookup vindex)
          await m.getRepository(StepResultEntity).findOneBy({ sessionId: s.id, stage: ANCHOR_STAGE });
    return decideHolderBinding({
      steps,
      stage: s.currentStage,
      anchor: anchorRow ? await loadAnchorHolder(m, this.deps.evidence, s, steps, anchorRow.result) : null,
      holderKeyThumbprint: verified.holderKeyThumbprint,
      claims: verified.claims,
    });
  }

  /**
   * Moves the session after its current step completed, in the completion's transaction: the workflow's
   * condition that matched (if any) first, then `gate_after`, then the next step or the end (moveAfterStep).
   * A matched condition is a timeline entry of its own.
   */
  private async advance(
    tx: TransitionTx,
    steps: WorkflowStep[],
    condition: ConditionMatch | null,
  ): Promise<SessionEntity> {
    const s = tx.session;
    const at = tx.now;
    const stage = s.currentStage;
    if (condition)
      await tx.timeline({
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
        return tx.move('fail', {
          currentStage: stage + 1,
          failure: { code: move.reason, stage, window: null, refused_responses: null },
          ...(ended ? { condition: { ...ended, outcome: 'fail' } } : {}),
        });
      case 'complete':
        return tx.move('step_completed_last', {
          currentStage: stage + 1,
          ...(ended ? { condition: { ...ended, outcome: 'complete' } } : {}),
        });
      case 'gate':
        return tx.move('step_completed_gate', {
          currentStage: move.nextStage,
          stepExpiresAt: null,
          // the business's decision is due after DECISION_DUE_HOURS; one reminder per gate (ADR 0008)
          decisionDueAt: new Date(at.getTime() + this.deps.config.decisionDueHours * 3600_000),
          decisionRemindedAt: null,
        });
      case 'next':
        return tx.move('step_completed_more', {
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
    const failed = await this.deps.transitions.run(s, async (tx) => {
      const burned = await tx.m
        .createQueryBuilder()
        .update(WalletRequestEntity)
        .set({ state: 'refused' })
        .where('id = :id AND state = :open', { id: req.id, open: 'open' })
        .execute();
      if (burned.affected !== 1) return null;
      await tx.timeline({
        kind: 'wallet_response_refused',
        at: tx.now,
        stage: req.stage,
        code: refusal.code,
        detail: { request_id: req.id },
      });
      // sql-lint-allow: session-scope: by session_id, unique across tenants: routed by a session_id lookup vindex
      const refusals = await tx.m
        .getRepository(WalletRequestEntity)
        .countBy({ sessionId: s.id, stage: req.stage, state: 'refused' });
      if (refusals < MAX_REFUSED_RESPONSES_PER_STEP) return null;
      // a session that changed meanwhile keeps the burned request and answers the refusal itself
      return tx.moveIfCurrent('fail', {
        failure: { code: refusal.code, stage: req.stage, window: null, refused_responses: refusals },
      });
    });
    if (!failed) return refusal;
    return new AppError(
      refusal.code,
      `${refusal.message} The session has failed after ${MAX_REFUSED_RESPONSES_PER_STEP} refused responses.`,
      { param: refusal.param, extra: { ...refusal.extra, session_status: 'failed' } },
    );
  }
}
