// Owns the hosted-page side of a session (internal transport, no stability promise): the status projection
// (no results, no personal data), the explicit start that binds one browser, the wallet request for the
// current step, and the wallet response that completes it. The session id in the path is the capability;
// after start, only the bound browser may act (browser-binding.ts decides which browser that is).

import type { DataSource } from 'typeorm';
import type { Clock } from '../../common/clock';
import { AppError, isAppError } from '../../common/errors';
import type { Config } from '../../config/config';
import type { AuditService } from '../audit/audit.service';
import type { DocumentEntity } from '../document/document.entity';
import { type DocumentService } from '../document/document.service';
import type { EvidenceService } from '../evidence/evidence.service';
import { SessionEntity } from '../session/session.entity';
import { stepWindowEnd } from '../session/session.input';
import { type KeptRead, SessionTransitions, type TransitionDeps } from '../session/session.transition';
import { recordSessionEventOnce } from '../timeline/session-events';
import type { PresentationVerifier } from '../verification/presentation-verifier';
import { StampedCache } from '../verification/trust-version';
import type { RouteTrust } from '../verification/trusted-authorities';
import { WalletRequestEntity } from '../verification/wallet-request.entity';
import { PRIMITIVE_SPECS } from '../workflow/primitives';
import { toRevisionView, type WorkflowService } from '../workflow/workflow.service';
import type { WorkflowStep } from '../workflow/workflow.steps';
import type { BrowserBinding } from './browser-binding';
import { type CachedSession, SessionRowCache, StaleRow, staleRow } from './session-row-cache';
import { StepCompletion } from './signer.completion';
import type {
  AnyWalletRequest,
  DocumentsShown,
  TransportAck,
  WalletResponseSubmission,
} from './signer.contract';
import { type PageView, type Persona, type Projection, SessionProjector } from './signer.projection';
import {
  openPage,
  type PageRead,
  pageAfterTransition,
  readPage,
  readSession,
  readSubmission,
} from './signer.read-model';
import { shownToEnd } from './signer.shown-to-end';
import {
  prepareWalletRequest,
  storeWalletRequest,
  type WalletRequestDeps,
  walletRequestAnswer,
} from './signer.wallet-request';
import type { WalletRequestKind, WalletTransports } from './signer.wallet-transports';

export type { PageView, Persona, Projection } from './signer.projection';

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
  /** Signed DC API and cross-device requests, and opening encrypted responses (signer.wallet-routes.ts). */
  wallets?: Pick<WalletTransports, 'build' | 'openResponse'>;
  onEventsQueued?: TransitionDeps['onEventsQueued'];
  claimAtCommit?: TransitionDeps['claimAtCommit'];
  /** Signer access to materials (modules/receipt): refuses downloads after the 48 h window or closing. */
  signerAccess?: { assertSignerAccessOpen(s: SessionEntity): Promise<void> };
}

export class SessionTransport {
  /** The KB-JWT audience a wallet must use for requests made from the hosted page (DC API style). */
  readonly audience: string;

  private readonly transitions: SessionTransitions;
  private readonly projector: SessionProjector;
  private readonly completion: StepCompletion;
  /** The routes' trust for wallet requests, as read at a trust stamp (ADR 0063). */
  private readonly routeTrust = new StampedCache<RouteTrust>(256);
  /** What this node last read or wrote of a running session, for Start and the wallet response (ADR 0067). */
  private readonly rows = new SessionRowCache();
  private readonly walletRequests: WalletRequestDeps;

  constructor(private readonly deps: TransportDeps) {
    this.audience = `origin:${new URL(deps.config.hostedUrl).origin}`;
    const { ds, clock, onEventsQueued, claimAtCommit } = deps;
    this.transitions = new SessionTransitions({ ds, clock, onEventsQueued, claimAtCommit });
    this.projector = new SessionProjector(deps);
    this.completion = new StepCompletion({ ...deps, transitions: this.transitions });
    this.walletRequests = {
      ...deps,
      audience: this.audience,
      routeTrust: this.routeTrust,
      steps: (s) => this.steps(s),
    };
  }

  /** The binding decision, for other browser-facing routes of a session (e.g. the signer's receipts). */
  get binding(): BrowserBinding {
    return this.deps.binding;
  }

  /**
   * Opening the link (POST /t/sessions/{id}/open). A browser without a valid server-issued cookie gets one
   * here (`issued`, to set as the cookie), so that a later Start binds to a value the browser already holds.
   * `cookie` is the value the browser holds after this answer (its own, or the issued one): the route sets it
   * again, which renews its lifetime on every use (ADR 0028). The session itself is read over GraphQL (read()),
   * or, with `read`, answered by the open from its own round trip (the page's first read, ADR 0062).
   */
  async openLink(
    id: string,
    browserCookie: unknown,
    opts: { read?: boolean } = {},
  ): Promise<{
    issued?: string;
    cookie: string;
    /** With `read`: the page's first read, for the cookie the browser holds after this answer (read()). */
    read?: PageView;
  }> {
    // support timeline: the first time the link was opened (reloads are not news), written with the page's
    // read in one round trip (signer.read-model.ts, ADR 0062)
    const page = await openPage(this.deps.ds, id, this.deps.clock.now());
    if (!page) throw new AppError('not_found', 'This session link is not valid.');
    const valid = this.deps.binding.verified(browserCookie);
    const issued = valid ? undefined : this.deps.binding.issue();
    const cookie = (valid ?? issued) as string;
    let read: { session: SessionEntity; projection: Projection } | undefined;
    if (opts.read) read = await this.viewOf(page, cookie);
    // an open that carries no read still brings an overdue session to its expiry, as it did before
    const s = read?.session ?? (await this.transitions.current(page.session));
    // the row as read now, with the stamp read beside it: the Start that follows begins from it (ADR 0067), and
    // the brand, from which the pages after Start and after each step are built (ADR 0072)
    this.rows.keep(s, page.stamp, this.deps.clock.now().getTime(), undefined, page.brand);
    return { cookie, ...(issued ? { issued } : {}), ...(read ? { read } : {}) };
  }

  /**
   * The projection for the browser holding `cookie` (a verified value), with its session: the signer page's
   * GraphQL read (signer.resolver.ts). Records nothing and issues no cookie; opening the link does that.
   */
  async read(id: string, cookie: string): Promise<{ session: SessionEntity; projection: Projection }> {
    // the page's read model: the session, its brand and the step's refused answers in one statement
    return this.viewOf(await readPage(this.deps.ds, id), cookie);
  }

  /** The page's read from its read-model row (readPage or openPage), for the browser holding `cookie`. */
  private async viewOf(
    page: PageRead | undefined,
    cookie: string,
  ): Promise<{ session: SessionEntity; projection: Projection }> {
    if (!page) throw new AppError('not_found', 'This session link is not valid.');
    const s = await this.transitions.current(page.session);
    return { session: s, projection: await this.projector.project(s, cookie, page) };
  }

  /**
   * Explicit start from this browser: binds the session to the browser's server-issued cookie (issued now if
   * it has none; a value the server did not issue is never used). A retried Start whose first answer was lost
   * finds its own binding and succeeds; another browser gets session_bound_elsewhere.
   */
  async start(
    id: string,
    browserCookie: unknown,
    opts: { read?: boolean } = {},
  ): Promise<{ ack: TransportAck; issued?: string; cookie: string; read?: PageView }> {
    const valid = this.deps.binding.verified(browserCookie);
    const token = valid ?? this.deps.binding.issue();
    const issued = valid ? undefined : token;
    // from this node's row of the page's open when it has one (its move's guard checks it, ADR 0067)
    const hit = this.rows.get(id, this.deps.clock.now().getTime());
    if (hit?.session.status === 'created') {
      try {
        return await this.startFrom(hit.session, token, issued, opts, hit);
      } catch (e) {
        // whatever it answers, a cached attempt that did not complete leaves no row behind
        this.rows.drop(id);
        if (!(e instanceof StaleRow)) throw e;
      }
    }
    return this.startFrom((await this.open(id)).s, token, issued, opts);
  }

  /** Start from `from`: read now, or this node's row (`hit`), which may only win the move (StaleRow). */
  private async startFrom(
    from: SessionEntity,
    token: string,
    issued: string | undefined,
    opts: { read?: boolean },
    hit?: CachedSession,
  ): Promise<{ ack: TransportAck; issued?: string; cookie: string; read?: PageView }> {
    const cached = hit !== undefined;
    // a fresh read had its expiry enforced by open(); a cached row has it here
    const s = cached ? await this.transitions.current(from) : from;
    if (s.status !== 'created') {
      if (cached) throw new StaleRow();
      this.requireBound(s, token);
      // a repeated Start moves nothing: the page's read, if carried, is a read of its own
      const read = opts.read ? await this.read(s.id, token) : undefined;
      return { ack: ackOf(s), cookie: token, ...(issued ? { issued } : {}), ...(read ? { read } : {}) };
    }
    const steps = await this.steps(s);
    const now = this.deps.clock.now();
    const first = steps[0];
    // the page's read, carried by the Start: from this node's rows or sent with the unit's COMMIT (ADR 0072)
    const after = opts.read ? pageAfterTransition(this.deps.ds, s.id, hit) : undefined;
    // a start that lost (another browser or tab won) answers from the persisted state
    const started = await this.transitions.run(
      s,
      (tx) =>
        tx.move('start', {
          bindingHash: this.deps.binding.bindingHash(s.id, token),
          currentStage: 0,
          stepExpiresAt: first ? stepWindowEnd(first, now, s.expiresAt) : null,
        }),
      cached ? staleRow : (fresh) => (fresh.status === 'created' ? undefined : fresh),
      // the guarded move is the only decision: it takes the row lock itself
      { lock: false, readWithCommit: after?.kept },
    );
    this.rows.keep(started, undefined, now.getTime());
    this.requireBound(started, token);
    // a start from this node's row won or threw; else from the COMMIT's round trip, or read now when it lost
    const page = after ? await after.page(started, cached) : undefined;
    // the stamp the COMMIT's read saw: the wallet request that follows begins from it (ADR 0067 amendment)
    if (page) this.rows.stampAt(s.id, page.session.version, page.stamp);
    const read = page ? await this.viewOf(page, token) : undefined;
    return { ack: ackOf(started), cookie: token, ...(issued ? { issued } : {}), ...(read ? { read } : {}) };
  }

  /**
   * A fresh OpenID4VP request (new nonce) for the current step of a started session: unsigned for the DC API
   * (`dc_api`, the default), or signed with a per-request encryption key (`dc_api_signed`, `cross_device`).
   */
  async walletRequest(
    id: string,
    browserToken: string | undefined,
    kind: WalletRequestKind = 'dc_api',
  ): Promise<AnyWalletRequest> {
    // from this node's row of the Start or the step before, with the trust stamp read beside it (ADR 0067
    // amendment): its insert is guarded by both
    const hit = this.rows.get(id, this.deps.clock.now().getTime());
    if (hit?.session.status === 'in_progress' && hit.stamp !== undefined) {
      try {
        return await this.walletRequestFrom(hit.session, hit.stamp, true, browserToken, kind);
      } catch (e) {
        // whatever it answers, a cached attempt that did not complete leaves no row behind
        this.rows.drop(id);
        if (!(e instanceof StaleRow)) throw e;
      }
    }
    const { s, stamp } = await this.open(id, true);
    return this.walletRequestFrom(s, stamp, false, browserToken, kind);
  }

  /**
   * The wallet request from `from`: read now, or this node's row (`cached`, `stamp` defined), which may only
   * insert the request while the session is still at that row and trust at that stamp (StaleRow otherwise).
   */
  private async walletRequestFrom(
    from: SessionEntity,
    stamp: string | undefined,
    cached: boolean,
    browserToken: string | undefined,
    kind: WalletRequestKind,
  ): Promise<AnyWalletRequest> {
    // a fresh read had its expiry enforced by open(); a cached row has it here
    const s = cached ? await this.transitions.current(from) : from;
    let prepared: Awaited<ReturnType<typeof prepareWalletRequest>>;
    try {
      this.requireActive(s, browserToken);
      prepared = await prepareWalletRequest(this.walletRequests, s, stamp, kind);
    } catch (e) {
      // a cached attempt never answers a failed precondition: the fresh read decides
      if (cached && isAppError(e)) throw new StaleRow();
      throw e;
    }
    const { row } = prepared;
    await storeWalletRequest(this.transitions, s, row, cached ? stamp : undefined);
    // the session as just read, its trust stamp and this request: the wallet response begins from them
    this.rows.keep(s, stamp, row.createdAt.getTime(), row);
    return walletRequestAnswer(this.walletRequests, s, prepared);
  }

  /**
   * Verifies the wallet response against the open request of the current step. Verification runs before any
   * write; then one transaction consumes the request, stores the result, the signed audit record and the
   * outbox events, and moves the session. A refused response writes nothing of the step; it burns its request
   * and counts toward the failure policy (refuse()).
   */
  async submitWalletResponse(
    id: string,
    browserToken: string | undefined,
    body: Omit<WalletResponseSubmission, 'read'>,
    opts: { read?: boolean } = {},
  ): Promise<{ ack: TransportAck; read?: PageView }> {
    // from this node's rows of the wallet request it answers, when it has them (ADR 0067): the completion's
    // guarded write checks the session, the request and the trust stamp they were read with
    const hit = this.rows.get(id, this.deps.clock.now().getTime(), body.request_id);
    if (hit?.request && hit.stamp !== undefined) {
      try {
        return await this.submitFrom(hit.session, hit.request, hit.stamp, browserToken, body, opts, hit);
      } catch (e) {
        // whatever it answers, a cached attempt that did not complete leaves no row behind
        this.rows.drop(id);
        if (!(e instanceof StaleRow)) throw e;
      }
    }
    // the session and its open request of the current step in one plain statement (ADR 0045 amendment)
    const read = await readSubmission(this.deps.ds, id, body.request_id);
    if (!read) throw new AppError('not_found', 'This session link is not valid.');
    return this.submitFrom(read.s, read.req, read.stamp, browserToken, body, opts);
  }

  /**
   * The wallet response to `req` of session `from` (null: no open request of that id for its current step),
   * read now or this node's rows (`hit`: it may only complete; anything else throws StaleRow, nothing written).
   */
  private async submitFrom(
    from: SessionEntity,
    req: WalletRequestEntity | null,
    stamp: string | undefined,
    browserToken: string | undefined,
    body: Omit<WalletResponseSubmission, 'read'>,
    opts: { read?: boolean },
    hit?: CachedSession,
  ): Promise<{ ack: TransportAck; read?: PageView }> {
    const cached = hit !== undefined;
    const s = await this.transitions.current(from);
    // the page's read, carried by the wallet response: from this node's rows or sent with the completion's COMMIT
    // (ADR 0072); a refused answer keeps its error answer (the read is not sent)
    const after = opts.read ? pageAfterTransition(this.deps.ds, s.id, hit) : undefined;
    try {
      this.requireActive(s, browserToken);
      if (!req || req.stage !== s.currentStage || req.state !== 'open')
        throw new AppError('request_not_found', 'This wallet request is unknown, used, or for another step.');
    } catch (e) {
      // a cached attempt never answers a failed precondition: the fresh read decides
      if (cached && isAppError(e)) throw new StaleRow();
      throw e;
    }
    // the completion answers for itself: from a cached row it only completes, answers "already used", or
    // throws StaleRow
    const done = await this.completeWalletRequest(s, req, body.response, stamp, after, cached);
    this.rows.keep(done, undefined, this.deps.clock.now().getTime());
    // a completed step leaves the session at the next step (no requests yet) or ended
    const page = after ? await after.page(done, done.currentStage > s.currentStage) : undefined;
    if (page) this.rows.stampAt(s.id, page.session.version, page.stamp);
    // requireActive above verified the cookie: the bound browser's value
    const read = page ? await this.viewOf(page, browserToken as string) : undefined;
    return { ack: ackOf(done), ...(read ? { read } : {}) };
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
    const { s, stamp } = await this.open(req.sessionId, true);
    if (s.status === 'expired') throw new AppError('session_expired');
    if (s.status !== 'in_progress' || s.currentStage !== req.stage)
      throw new AppError('request_not_found', 'This wallet request is no longer waiting for an answer.');
    await this.completeWalletRequest(s, req, answer, stamp, undefined);
  }

  /** The one completion path (signer.completion.ts): verify the answer to `req`, then complete or refuse. */
  private async completeWalletRequest(
    s: SessionEntity,
    req: WalletRequestEntity,
    answer: unknown,
    trustStamp: string | undefined,
    after: { kept?: KeptRead } | undefined,
    cached = false,
  ): Promise<SessionEntity> {
    const steps = await this.steps(s);
    // "documents shown" reaches completion as data (sign steps only), never as a callback into the transport
    const shown =
      steps[s.currentStage] && PRIMITIVE_SPECS[steps[s.currentStage].primitive].needsDocuments
        ? await shownToEnd(this.deps.ds, s.id, s.currentStage)
        : undefined;
    return this.completion.complete(s, steps, req, answer, shown, trustStamp, after?.kept, cached);
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
    const { s } = await this.open(id);
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
  ): Promise<DocumentsShown> {
    const { s } = await this.open(id);
    this.requireActive(s, browserToken);
    const step = (await this.steps(s))[s.currentStage];
    const docs =
      step && PRIMITIVE_SPECS[step.primitive].needsDocuments
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
    const shown = (await shownToEnd(this.deps.ds, s.id, s.currentStage)).map((x) => x.position);
    return { shown_to_end: shown, all_shown: docs.every((d) => shown.includes(d.position)) };
  }

  /**
   * Every hosted-page request reads its session first: one prepared statement on the driver (fast-sql.ts), with
   * the trust stamp as two scalar subqueries when the request reads trust (`stamped`: the wallet request and
   * response), so its trust reads may be answered from cache (ADR 0063); the others read no trust (ADR 0065).
   */
  private async open(id: string, stamped = false): Promise<{ s: SessionEntity; stamp: string | undefined }> {
    const read = await readSession(this.deps.ds, id, stamped);
    if (!read) throw new AppError('not_found', 'This session link is not valid.');
    return { s: await this.transitions.current(read.s), stamp: read.stamp };
  }

  /** The one decision "this request's browser is the bound one" (also used by modules/receipt). */
  bindingOf(s: SessionEntity, token: unknown): Projection['binding'] {
    return this.projector.bindingOf(s, token);
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
}

/**
 * What a /t mutation answers without a carried read: where the session is now (with one, the page's view,
 * ADR 0062).
 */
const ackOf = (s: SessionEntity): TransportAck => ({ status: s.status, current_stage: s.currentStage });
