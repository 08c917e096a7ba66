// Owns who may read a signer's record and until when (spec §4.4, §8): only the browser bound at start
// (SessionTransport.bindingOf, the one binding check) may act, another browser gets session_bound_elsewhere
// and an unknown session not_found; access lasts RECEIPT_LIMITS.accessMs after the terminal state unless the
// signer closed it. Also the record's shapes and limits (receipt.service.ts re-exports them).
import type { DataSource } from 'typeorm';
import type { Clock } from '../../common/clock';
import { AppError } from '../../common/errors';
import type { Logger } from '../../common/logger';
import type { Config } from '../../config/config';
import type { AuditService } from '../audit/audit.service';
import type { DocumentService } from '../document/document.service';
import { SessionEntity } from '../session/session.entity';
import { isTerminal } from '../session/session.machine';
import type { StepResultView } from '../session/session.service';
import { enforceExpiry } from '../session/session.transition';
import { StepResultEntity } from '../session/step-result.entity';
import type { BrowserBinding } from '../signer/browser-binding';
import type { WorkflowService } from '../workflow/workflow.service';
import { ReceiptAccessEntity } from './receipt.entities';

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
  /** Which browser is the bound one (the same decision the signer's page makes). */
  binding: Pick<BrowserBinding, 'bindingOf'>;
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

export const maskEmail = (email: string): string => {
  const [local = '', domain = ''] = email.split('@');
  return `${local.slice(0, 1)}***@${domain}`;
};

/** A session loaded for its bound browser, with its access state. */
export interface Loaded {
  s: SessionEntity;
  access: ReceiptAccessEntity | null;
  state: AccessState;
  accessUntil: Date | null;
}

export class SignerAccess {
  constructor(private readonly deps: Pick<ReceiptDeps, 'ds' | 'clock' | 'binding'>) {}

  /** The session as its bound browser sees it, with the access state; throws for anyone else. */
  async load(sessionId: string, browserToken: string | undefined): Promise<Loaded> {
    const found =
      typeof sessionId === 'string' && /^sess_[0-9a-z]{1,40}$/.test(sessionId)
        ? // sql-lint-allow: session-scope: by primary key (ids are globally unique): a lookup vindex on the id routes it to one shard (the capability id of the receipt page)
          await this.deps.ds.getRepository(SessionEntity).findOneBy({ id: sessionId })
        : null;
    if (!found) throw new AppError('not_found', 'This session link is not valid.');
    const s = await enforceExpiry(this.deps.ds, this.deps.clock, found);
    const binding = this.deps.binding.bindingOf(s, browserToken);
    if (binding === 'other_browser') throw new AppError('session_bound_elsewhere');
    if (binding === 'none') throw new AppError('receipt_not_available', 'The session was not started.');
    const access = await this.deps.ds.getRepository(ReceiptAccessEntity).findOneBy({ sessionId: s.id });
    return { s, access, ...this.accessOf(s, access) };
  }

  accessOf(
    s: SessionEntity,
    access: ReceiptAccessEntity | null,
  ): { state: AccessState; accessUntil: Date | null } {
    const accessUntil =
      isTerminal(s.status) && s.endedAt ? new Date(s.endedAt.getTime() + RECEIPT_LIMITS.accessMs) : null;
    if (access?.closedAt) return { state: 'closed', accessUntil };
    if (accessUntil && this.deps.clock.now() >= accessUntil) return { state: 'ended', accessUntil };
    return { state: 'open', accessUntil };
  }

  assertOpen(l: { state: AccessState; accessUntil: Date | null }): void {
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

  /** The completed steps' results, in stage order. */
  async completedRows(sessionId: string): Promise<StepResultEntity[]> {
    // sql-lint-allow: session-scope: by session_id, unique across tenants: routed by a session_id lookup vindex
    return this.deps.ds
      .getRepository(StepResultEntity)
      .find({ where: { sessionId }, order: { stage: 'ASC' } });
  }
}
