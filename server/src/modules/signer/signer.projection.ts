// Owns the hosted page's status projection of a session: no results, no personal data; the business's
// branding, the steps and their documents, the deadline the person faces now, and the binding of this browser.
import type { DataSource } from 'typeorm';
import type { z } from 'zod';
import type { Clock } from '../../common/clock';
import { sql } from '../../db/fast-sql';
import { pageBrandOf } from '../branding/branding.service';
import type { DocumentService } from '../document/document.service';
import type { SessionEntity } from '../session/session.entity';
import {
  canExpire,
  isTerminal,
  MAX_REFUSED_RESPONSES_PER_STEP,
  type SessionStatus,
} from '../session/session.machine';
import { conditionFailedStage, failureReasonOf } from '../session/session.state';
import { StepResultEntity } from '../session/step-result.entity';
import { SessionEventEntity } from '../timeline/session-event.entity';
import { sha256HexOfText } from '../verification/transaction-data';
import { PRIMITIVE_SPECS } from '../workflow/primitives';
import { toRevisionView, type WorkflowService } from '../workflow/workflow.service';
import type { Primitive, WorkflowStep } from '../workflow/workflow.steps';
import type { BrowserBinding } from './browser-binding';
import type { SandboxPersonaSchema } from './signer.contract';
import type { PageRead } from './signer.read-model';

/**
 * The status projection, in the words of the GraphQL schema's SignerSession (signer.graphql.ts), which is its
 * only reader (ADR 0043): absent values are `null`, never missing.
 */
export interface Projection {
  id: string;
  status: SessionStatus;
  /** True once the status is terminal (the machine's TERMINAL_STATUSES): the page keeps no list of its own. */
  ended: boolean;
  environment: 'sandbox' | 'production';
  /** The branding's display name, else the business name; the accent `#rrggbb` and logo path when set. */
  business: { name: string; accentColor: string | null; logoUrl: string | null };
  workflowName: string;
  steps: {
    stage: number;
    primitive: Primitive;
    claims: string[] | null;
    threshold: number | null;
    /** attestation: the terms shown before the signer approves, and their SHA-256 (hex, UTF-8). */
    terms: string | null;
    termsSha256: string | null;
    /**
     * sign: the documents shown before the signer signs (labels and hashes; the bytes download separately), and
     * whether the page showed each to its end (recorded by the server, ADR 0029: a reload remembers it).
     */
    documents:
      | {
          position: number;
          label: string;
          sha256: string;
          size: number;
          contentType: string;
          shownToEnd: boolean;
        }[]
      | null;
  }[];
  currentStage: number;
  completedStages: number[];
  expires: string;
  /**
   * The deadline of what the person is doing now (ADR 0029): the step window once a step has started
   * (`deadlineKind: "step"`), else the overall expiry (`"link"`). Null when nothing can run out (waiting for
   * the business's decision, or ended). `serverTime` is the service's clock at this answer, so the page counts
   * down against it, not against a device clock that may be wrong.
   */
  deadline: string | null;
  deadlineKind: 'step' | 'link' | null;
  serverTime: string;
  binding: 'none' | 'this_browser' | 'other_browser';
  /** Only once the session ended: where the page offers the way back (never carrying results, ADR 0019). */
  returnUrl: string | null;
  /**
   * In progress, once a wallet answer for the current step was refused: how many more answers the step
   * accepts before the session fails (MAX_REFUSED_RESPONSES_PER_STEP), so the page can say so. A count only.
   */
  triesLeft: number | null;
  /**
   * Failed or expired: why, in the words of GET /v1/sessions/{id} `failure_reason` (code, the step, which
   * window ran out), so the page can say what happened (an age check not passed, the step's time run out).
   */
  failure: { code: string; stage: number | null; window: 'overall' | 'step' | null } | null;
}

/** A test person of the sandbox reference wallet (the /t contract's shape). */
export type Persona = z.infer<typeof SandboxPersonaSchema>;

/** The page's read of a session: the session as read and its projection for one browser (transport read()). */
export type PageView = { session: SessionEntity; projection: Projection };

export interface ProjectionDeps {
  ds: DataSource;
  clock: Clock;
  binding: BrowserBinding;
  workflows: WorkflowService;
  documents: Pick<DocumentService, 'forSession'>;
}

export class SessionProjector {
  constructor(private readonly deps: ProjectionDeps) {}

  /** The one decision "this request's browser is the bound one" (also used by modules/receipt). */
  bindingOf(s: SessionEntity, token: unknown): Projection['binding'] {
    return this.deps.binding.bindingOf(s, token);
  }

  /**
   * The page's projection of `s`; `known` is what the read model (signer.read-model.ts) already read with the
   * session, so nothing is read twice.
   */
  async project(
    s: SessionEntity,
    token: unknown,
    known?: Partial<Pick<PageRead, 'brand' | 'refused'>>,
  ): Promise<Projection> {
    const rev = toRevisionView(
      await this.deps.workflows.revision(this.deps.ds.manager, s.workflowId, s.workflowRevision),
    );
    const brand = known?.brand ?? (await pageBrandOf(this.deps.ds, s.businessId, s.environment));
    const done = Math.min(s.currentStage, rev.steps.length);
    const hasSign = rev.steps.some((st) => PRIMITIVE_SPECS[st.primitive].needsDocuments);
    const documents = hasSign ? await this.deps.documents.forSession(this.deps.ds.manager, s.id) : [];
    const shown = hasSign ? await this.shownToEnd(s) : new Set<string>();
    const failure = isTerminal(s.status) ? failureReasonOf(s) : null;
    return {
      id: s.id,
      status: s.status,
      ended: isTerminal(s.status),
      environment: s.environment,
      business: {
        name: brand.name,
        accentColor: brand.accentColor ?? null,
        logoUrl: brand.logoUrl ?? null,
      },
      workflowName: rev.name,
      steps: rev.steps.map((st, stage) => ({
        stage,
        primitive: st.primitive,
        claims: st.claims ?? null,
        threshold: st.threshold || null,
        terms: st.terms ?? null,
        termsSha256: st.terms !== undefined ? sha256HexOfText(st.terms) : null,
        documents: PRIMITIVE_SPECS[st.primitive].needsDocuments
          ? documents
              .filter((d) => d.stage === stage)
              .map(({ position, label, sha256, size, contentType }) => ({
                position,
                label,
                sha256,
                size,
                contentType,
                shownToEnd: shown.has(`${stage}:${position}`),
              }))
          : null,
      })),
      currentStage: isTerminal(s.status) ? done : s.currentStage,
      completedStages: await this.completedStages(s, rev.steps, done),
      expires: s.expiresAt.toISOString(),
      ...deadlineOf(s),
      serverTime: this.deps.clock.now().toISOString(),
      binding: this.bindingOf(s, token),
      returnUrl: isTerminal(s.status) && s.returnUrl ? s.returnUrl : null,
      triesLeft: await this.triesLeft(s, known?.refused),
      failure: failure ? { code: failure.code, stage: failure.stage, window: failure.window } : null,
    };
  }

  /** `stage:position` of every document the page showed to its end (the timeline's records). */
  private async shownToEnd(s: SessionEntity): Promise<Set<string>> {
    // sql-lint-allow: session-scope: by session_id, unique across tenants: routed by a session_id lookup vindex
    const rows = await this.deps.ds.getRepository(SessionEventEntity).find({
      where: { sessionId: s.id, kind: 'document_shown_to_end' },
      select: { stage: true, detail: true },
    });
    const out = new Set<string>();
    for (const r of rows) {
      const d = JSON.parse(r.detail ?? '{}') as { position?: unknown };
      if (typeof d.position === 'number') out.add(`${r.stage}:${d.position}`);
    }
    return out;
  }

  /** Refused answers for the running step, as the tries the page may still offer (none before a refusal). */
  private async triesLeft(s: SessionEntity, known?: number): Promise<number | null> {
    if (s.status !== 'in_progress') return null;
    if (known !== undefined) return known > 0 ? Math.max(0, MAX_REFUSED_RESPONSES_PER_STEP - known) : null;
    // one plain statement (fast-sql.ts): the page reads this on every load while a step runs (ADR 0045)
    const rows = await sql<{ n: number | string }[]>(
      this.deps.ds,
      // sql-lint-allow: session-scope: by session_id, unique across tenants: routed by a session_id lookup vindex
      "SELECT COUNT(*) AS n FROM wallet_request WHERE session_id = ? AND stage = ? AND state = 'refused'",
      [s.id, s.currentStage],
    );
    const refused = Number(rows[0]?.n ?? 0);
    return refused > 0 ? Math.max(0, MAX_REFUSED_RESPONSES_PER_STEP - refused) : null;
  }

  /**
   * The stages that completed before `done`: every one, unless a condition of the workflow can skip steps
   * (ADR 0031); then the stages that have a result, so a skipped step is not shown as done.
   */
  private async completedStages(s: SessionEntity, steps: WorkflowStep[], done: number): Promise<number[]> {
    // a step whose condition failed the session produced a result but is not done (issue 29)
    const refused = conditionFailedStage(s);
    if (!steps.some((st) => st.conditions?.some((c) => c.outcome === 'skip')))
      return Array.from({ length: done }, (_, i) => i).filter((i) => i !== refused);
    // sql-lint-allow: session-scope: by session_id, unique across tenants: routed by a session_id lookup vindex
    const rows = await this.deps.ds
      .getRepository(StepResultEntity)
      .find({ where: { sessionId: s.id }, select: { stage: true }, order: { stage: 'ASC' } });
    return rows.map((r) => r.stage).filter((stage) => stage < done && stage !== refused);
  }
}

/** The deadline the person faces now: the running step's window, else the link's expiry (ADR 0029). */
function deadlineOf(s: SessionEntity): Pick<Projection, 'deadline' | 'deadlineKind'> {
  if (s.status === 'in_progress' && s.stepExpiresAt)
    return { deadline: s.stepExpiresAt.toISOString(), deadlineKind: 'step' };
  if (canExpire(s.status)) return { deadline: s.expiresAt.toISOString(), deadlineKind: 'link' };
  return { deadline: null, deadlineKind: null };
}
