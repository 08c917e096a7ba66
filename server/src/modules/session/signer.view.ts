// Owns the signer page's read of a session (GraphQL, signer.resolver.ts): authorised by the binding cookie
// exactly as the /t routes decide it (browser-binding.ts), built from SessionTransport's one status projection,
// plus what the page needs to run the current step without restating server rules: the wallet requests it may
// ask the /t transport routes for, and the sandbox test persons that can answer this step. The wallet protocol
// itself (start, wallet request, wallet response) stays on the /t routes.
import type { DataSource } from 'typeorm';
import { AppError } from '../../common/errors';
import { randomToken } from '../../common/ids';
import type { DocumentService } from '../document/document.service';
import { toDocumentView } from '../document/document.service';
import { bindingClaimsFor } from '../verification/holder-binding';
import { SIGNED_DC_API_PROTOCOL } from '../verification/jar';
import { ANNEX_C_PROTOCOL, annexCSupports } from '../verification/mdoc/annex-c';
import { requestForStep } from '../verification/primitives';
import { DC_API_PROTOCOL } from '../verification/request';
import { toRevisionView, type WorkflowService } from '../workflow/workflow.service';
import type { SessionEntity } from './session.entity';
import { asksForMdoc, type Persona, type SessionTransport } from './session.transport';
import {
  type BrowserBindingGql,
  type DeadlineKindGql,
  type SignerSessionGql,
  type WalletRequestOfferGql,
  WalletTransportGql,
} from './signer.graphql';

export interface SignerViewDeps {
  ds: DataSource;
  transport: Pick<SessionTransport, 'read' | 'binding'>;
  workflows: Pick<WorkflowService, 'revision'>;
  documents: Pick<DocumentService, 'forSession'>;
  /** Sandbox reference-wallet persons that can answer `request` (absent: no sandbox wallet on this node). */
  sandboxPersonas?: (request: Record<string, unknown>) => Promise<Persona[]>;
}

/** The signer page's view of session `id` for the browser presenting `browserCookie`. */
export async function signerSession(
  deps: SignerViewDeps,
  id: string,
  browserCookie: string | undefined,
): Promise<SignerSessionGql> {
  // No cookie this service issued: the same answer as an unknown link, so the read is no oracle without it
  // (opening the link, POST /t/sessions/{id}/open, gives the browser its cookie first).
  const cookie = deps.transport.binding.verified(browserCookie);
  if (!cookie) throw new AppError('not_found', 'This session link is not valid.');
  const { session, projection: p } = await deps.transport.read(id, cookie);
  const running = p.status === 'in_progress' && p.binding === 'this_browser';
  const offers = running
    ? await currentStepOffers(deps, session)
    : { walletRequests: [], sandboxPersonas: [] };
  // the projection is already in the schema's words (SignerSession); the enums are the same strings
  return {
    ...p,
    binding: p.binding as BrowserBindingGql,
    deadlineKind: p.deadlineKind as DeadlineKindGql | null,
    ...offers,
  };
}

type Offers = Pick<SignerSessionGql, 'walletRequests' | 'sandboxPersonas'>;

/**
 * The offers of a step that shows no documents, by workflow, revision, stage and environment (ADR 0045): a
 * published revision never changes, so they are a pure function of that key and the page's reads after the
 * first skip building and validating the step's request (DCQL). Per service instance (per deps), bounded.
 */
const offersCache = new WeakMap<SignerViewDeps, Map<string, Offers>>();
const OFFERS_CACHE_MAX = 512;

/**
 * The running step's wallet requests and sandbox persons: derived from the same request the wallet-request
 * route builds for this step (requestForStep; a throwaway nonce: nothing is stored or issued).
 */
async function currentStepOffers(deps: SignerViewDeps, s: SessionEntity): Promise<Offers> {
  let cache = offersCache.get(deps);
  if (!cache) {
    cache = new Map();
    offersCache.set(deps, cache);
  }
  const key = `${s.workflowId}\n${s.workflowRevision}\n${s.currentStage}\n${s.environment}`;
  const hit = cache.get(key);
  if (hit) return hit;
  const { sign, ...offers } = await buildOffers(deps, s);
  // a sign step's request names the session's own documents: not cached
  if (!sign) {
    if (cache.size >= OFFERS_CACHE_MAX) cache.delete(cache.keys().next().value as string);
    cache.set(key, offers);
  }
  return offers;
}

async function buildOffers(deps: SignerViewDeps, s: SessionEntity): Promise<Offers & { sign: boolean }> {
  const steps = toRevisionView(
    await deps.workflows.revision(deps.ds.manager, s.workflowId, s.workflowRevision),
  ).steps;
  const step = steps[s.currentStage];
  if (!step) return { walletRequests: [], sandboxPersonas: [], sign: false };
  const documents =
    step.primitive === 'sign'
      ? (await deps.documents.forSession(deps.ds.manager, s.id, s.currentStage)).map(toDocumentView)
      : undefined;
  const { request } = requestForStep(step, randomToken(32), {
    documents,
    bindingClaims: bindingClaimsFor(steps, s.currentStage),
  });
  const base = `/t/sessions/${encodeURIComponent(s.id)}/wallet-request`;
  const offer = (transport: WalletTransportGql, protocol: string, path: string): WalletRequestOfferGql => ({
    transport,
    protocol,
    path,
  });
  const walletRequests = [
    offer(WalletTransportGql.dc_api, DC_API_PROTOCOL, base),
    offer(WalletTransportGql.dc_api_signed, SIGNED_DC_API_PROTOCOL, `${base}/dc_api_signed`),
    ...(annexCSupports(step.primitive) && asksForMdoc(request)
      ? [offer(WalletTransportGql.org_iso_mdoc, ANNEX_C_PROTOCOL, `${base}/org_iso_mdoc`)]
      : []),
    offer(WalletTransportGql.cross_device, 'openid4vp', `${base}/cross_device`),
  ];
  const sandboxPersonas =
    s.environment === 'sandbox' && deps.sandboxPersonas ? await deps.sandboxPersonas(request) : [];
  return { walletRequests, sandboxPersonas, sign: step.primitive === 'sign' };
}
