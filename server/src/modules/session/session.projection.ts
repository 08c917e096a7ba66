// Owns the hosted page's status projection of a session: no results, no personal data; the business's
// branding, the steps and their documents, the deadline the person faces now, and the binding of this browser.
import type { DataSource } from 'typeorm';
import type { Clock } from '../../common/clock';
import { pageBrandOf } from '../branding/branding.service';
import { type DocumentService, type DocumentView, toDocumentView } from '../document/document.service';
import { sha256HexOfText } from '../verification/transaction-data';
import { WalletRequestEntity } from '../verification/wallet-request.entity';
import { toRevisionView, type WorkflowService } from '../workflow/workflow.service';
import type { WorkflowStep } from '../workflow/workflow.steps';
import type { BrowserBinding } from './browser-binding';
import type { SessionEntity } from './session.entity';
import { isTerminal, MAX_REFUSED_RESPONSES_PER_STEP } from './session.machine';
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
    if (!s.bindingHash) return 'none';
    return this.deps.binding.isBoundBrowser(s, token) ? 'this_browser' : 'other_browser';
  }

  async project(s: SessionEntity, token: unknown): Promise<Projection> {
    const rev = toRevisionView(
      await this.deps.workflows.revision(this.deps.ds.manager, s.workflowId, s.workflowRevision),
    );
    const brand = await pageBrandOf(this.deps.ds, s.businessId, s.environment);
    const done = Math.min(s.currentStage, rev.steps.length);
    const documents = rev.steps.some((st) => st.primitive === 'sign')
      ? await this.deps.documents.forSession(this.deps.ds.manager, s.id)
      : [];
    return {
      id: s.id,
      status: s.status,
      environment: s.environment,
      business: {
        name: brand.name,
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
}

/** The deadline the person faces now: the running step's window, else the link's expiry (ADR 0029). */
function deadlineOf(s: SessionEntity): Pick<Projection, 'deadline' | 'deadline_kind'> {
  if (s.status === 'in_progress' && s.stepExpiresAt)
    return { deadline: s.stepExpiresAt.toISOString(), deadline_kind: 'step' };
  if (s.status === 'created' || s.status === 'in_progress')
    return { deadline: s.expiresAt.toISOString(), deadline_kind: 'link' };
  return {};
}
