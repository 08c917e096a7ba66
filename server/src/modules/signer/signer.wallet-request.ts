// Owns preparing the wallet request for the current step of a started session (the hosted page's `walletRequest`,
// signer.transport.ts calls it): the step's DCQL query with the routes' trust and rules, a fresh nonce, and
// for the signed transports the request object and its response key; then storing it (storeWalletRequest) and
// what the page gets for it.
import type { DataSource } from 'typeorm';
import type { Clock } from '../../common/clock';
import { AppError } from '../../common/errors';
import { newId, randomToken } from '../../common/ids';
import { insertRowGuarded, insertRowLater } from '../../db/fast-sql';
import { type DocumentService, toDocumentView } from '../document/document.service';
import { applyRouteRules } from '../relying-party/route-request-rules';
import type { SessionEntity } from '../session/session.entity';
import type { SessionTransitions } from '../session/session.transition';
import { nextOrderKey } from '../timeline/session-events';
import { asksForMdoc } from '../verification/mdoc/mdoc-query';
import { DC_API_PROTOCOL as WALLET_PROTOCOL } from '../verification/request';
import type { StampedCache } from '../verification/trust-version';
import { stampGuard } from '../verification/trust-version';
import type { RouteTrust } from '../verification/trusted-authorities';
import { WalletRequestEntity } from '../verification/wallet-request.entity';
import { PRIMITIVE_SPECS } from '../workflow/primitives';
import { requestForStep } from '../workflow/primitives/for-step';
import { allowedRoutes } from '../workflow/route-scope';
import { type IntendedUse, intendedUseOf } from '../workflow/workflow.intended-use';
import type { WorkflowService } from '../workflow/workflow.service';
import type { WorkflowStep } from '../workflow/workflow.steps';
import { bindingClaimsFor } from './holder-binding';
import { StaleRow, staleRow } from './session-row-cache';
import type { AnyWalletRequest, UnsignedWalletRequest } from './signer.contract';
import type { Persona } from './signer.projection';
import { shownToEnd } from './signer.shown-to-end';
import type { WalletRequestKind, WalletTransports } from './signer.wallet-transports';

export interface WalletRequestDeps {
  ds: DataSource;
  clock: Clock;
  workflows: WorkflowService;
  documents: Pick<DocumentService, 'forSession'>;
  wallets?: Pick<WalletTransports, 'build'>;
  /** The KB-JWT audience of requests made from the hosted page. */
  audience: string;
  /** The routes' trust, as read at a trust stamp (ADR 0063). */
  routeTrust: StampedCache<RouteTrust>;
  /** The steps of the session's pinned revision. */
  steps: (s: SessionEntity) => Promise<WorkflowStep[]>;
  /** Reference-wallet personas offered on sandbox sessions (none in production), those that can answer `request`. */
  sandboxPersonas?: (request: Record<string, unknown>) => Promise<Persona[]>;
}

type Signed = Awaited<ReturnType<WalletTransports['build']>>;

/**
 * The request for the current step of `s` (in progress, checked by the caller), as the row to store and what the
 * page is answered from: the unsigned request, and for a signed transport what it built.
 */
export async function prepareWalletRequest(
  deps: WalletRequestDeps,
  s: SessionEntity,
  stamp: string | undefined,
  kind: WalletRequestKind,
): Promise<{
  row: WalletRequestEntity;
  request: Record<string, unknown>;
  signed: Signed | null | undefined;
}> {
  const steps = await deps.steps(s);
  const step = steps[s.currentStage];
  if (!step) throw new AppError('session_state_conflict', 'There is no step to run.');
  if (kind === 'org_iso_mdoc' && !PRIMITIVE_SPECS[step.primitive].annexC) {
    throw new AppError(
      'protocol_not_offered',
      `A ${step.primitive} step is not offered over org-iso-mdoc: Annex C cannot bind its transaction data.`,
    );
  }
  const nonce = randomToken(32);
  const documents = PRIMITIVE_SPECS[step.primitive].needsDocuments
    ? (await deps.documents.forSession(deps.ds.manager, s.id, s.currentStage)).map(toDocumentView)
    : undefined;
  if (documents) {
    // the wallet is asked to sign only what the page has shown to the end (ADR 0029)
    const shown = await shownToEnd(deps.ds, s.id, s.currentStage);
    const missing = documents.filter((d) => !shown.some((x) => x.position === d.position));
    if (missing.length > 0)
      throw new AppError(
        'documents_not_shown',
        `Show every document of this step to the end first; not yet shown: ${missing.map((d) => d.position).join(', ')}.`,
      );
  }
  // the routes' trust as DCQL trusted_authorities, and their x5c rule (ADR 0050)
  const { request, leafOnly, speaking } = await applyRouteRules(
    deps.ds,
    step,
    s.environment,
    requestForStep(step, nonce, { documents, bindingClaims: bindingClaimsFor(steps, s.currentStage) })
      .request,
    // answered from this instance's cache while the trust stamp read with the session is unchanged
    { cache: deps.routeTrust, stamp },
  );
  if (kind === 'org_iso_mdoc' && !asksForMdoc(request)) {
    // e.g. age_verify above 99: ISO age_over_NN has two digits, so only the SD-JWT VC can answer
    throw new AppError(
      'protocol_not_offered',
      'This step asks for no mdoc, so it is not offered over org-iso-mdoc.',
    );
  }
  const now = deps.clock.now();
  const requestId = newId('wreq');
  const expiresAt = s.stepExpiresAt ?? s.expiresAt;
  if (kind !== 'dc_api' && !deps.wallets) throw new AppError('not_found', 'No such wallet transport.');
  const signed =
    kind === 'dc_api'
      ? null
      : await deps.wallets?.build(kind, {
          requestId,
          base: request,
          now,
          expiresAt,
          leafOnly,
          speaking,
          business: {
            id: s.businessId,
            environment: s.environment,
            intendedUse: await intendedUse(deps, s),
          },
          // Annex C is signed by the reader certificates of the step's routes (ADR 0049)
          routes: kind === 'org_iso_mdoc' ? await allowedRoutes(deps.ds, step, s.environment) : undefined,
        });
  const row = Object.assign(new WalletRequestEntity(), {
    id: requestId,
    sessionId: s.id,
    businessId: s.businessId,
    stage: s.currentStage,
    nonce,
    audience: signed?.audience ?? deps.audience,
    request: JSON.stringify(signed?.stored ?? request),
    state: 'open',
    createdAt: now,
    expiresAt,
    responseMode: signed?.responseMode ?? null,
    requestObject: signed?.requestObject ?? null,
    responseKey: signed?.responseKey ?? null,
    // the support timeline's entry of this request is the row itself (ADR 0074)
    transport: kind,
    orderKey: nextOrderKey(),
  } satisfies Partial<WalletRequestEntity>);
  return { row, request, signed };
}

/** The intended use of the session's pinned revision (ADR 0042); null: the business default applies. */
async function intendedUse(deps: WalletRequestDeps, s: SessionEntity): Promise<IntendedUse | null> {
  return intendedUseOf(
    (await deps.workflows.revision(deps.ds.manager, s.workflowId, s.workflowRevision)).intendedUse,
  );
}

/**
 * Stores the prepared request `row` of session `s`: one INSERT, which is also the request's entry in the support
 * timeline (its transport and order key, ADR 0074). On MySQL it is one statement with no transaction around it
 * (ADR 0074). No decision inside, so no session row lock (a request of a session that moved on meanwhile is never
 * answered: the completion joins it on the current stage and its move is guarded). With `cachedAt`, `s` is this
 * node's row and the request was built at that trust stamp (ADR 0067 amendment): the request is inserted from
 * the session row only while it is at that version and trust at that stamp; otherwise nothing is written and
 * StaleRow is thrown.
 */
export async function storeWalletRequest(
  transitions: SessionTransitions,
  s: SessionEntity,
  row: WalletRequestEntity,
  cachedAt: string | undefined,
): Promise<void> {
  await transitions.run(
    s,
    async (tx) => {
      // plain INSERT (fast-sql.ts), every column set, sent alone or with the COMMIT
      if (cachedAt === undefined) await insertRowLater(tx.m.dataSource, WalletRequestEntity, row, tx.m);
      else {
        const trust = stampGuard(cachedAt);
        const inserted = await insertRowGuarded(tx.m.dataSource, WalletRequestEntity, row, tx.m, {
          table: 'session',
          id: s.id,
          guard: `status = ? AND version = ? AND ${trust.where}`,
          params: [s.status, s.version, ...trust.params],
        });
        if (inserted !== 1) throw new StaleRow();
      }
    },
    // a cached row's lost guard: run again from a fresh read
    cachedAt === undefined ? undefined : staleRow,
    { lock: false },
  );
}

/** What the page gets for a stored request: the request, or what its signed transport built for the page. */
export async function walletRequestAnswer(
  deps: Pick<WalletRequestDeps, 'sandboxPersonas'>,
  s: SessionEntity,
  { row, request, signed }: Awaited<ReturnType<typeof prepareWalletRequest>>,
): Promise<AnyWalletRequest> {
  const common = {
    request_id: row.id,
    expires: row.expiresAt.toISOString(),
    sandbox_personas:
      s.environment === 'sandbox' && deps.sandboxPersonas ? await deps.sandboxPersonas(request) : null,
  };
  if (signed) return { ...common, ...signed.forPage };
  return { ...common, request, protocol: WALLET_PROTOCOL } satisfies UnsignedWalletRequest;
}
