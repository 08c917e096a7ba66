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
import { SIGNED_DC_API_PROTOCOL } from '../relying-party/jar';
import type { SessionEntity } from '../session/session.entity';
import { ANNEX_C_PROTOCOL } from '../verification/mdoc/annex-c';
import { DC_API_PROTOCOL } from '../verification/request';
import { PRIMITIVE_SPECS } from '../workflow/primitives';
import { requestForStep } from '../workflow/primitives/for-step';
import { toRevisionView, type WorkflowService } from '../workflow/workflow.service';
import { bindingClaimsFor } from './holder-binding';
import {
  type BrowserBindingGql,
  type DeadlineKindGql,
  type SignerSessionGql,
  WalletTransportGql,
} from './signer.graphql';
import type { Projection } from './signer.projection';
import type { Persona, SessionTransport } from './signer.transport';
import { asksForMdoc } from './signer.wallet-transports';

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
  return signerViewOf(deps, await deps.transport.read(id, cookie));
}

/**
 * The page's view of a session already read with its projection (by the GraphQL read, or by the open that
 * answers the page's first read, ADR 0062).
 */
export async function signerViewOf(
  deps: Omit<SignerViewDeps, 'transport'>,
  read: { session: SessionEntity; projection: Projection },
): Promise<SignerSessionGql> {
  const { session, projection: p } = read;
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
/** A step's offers without the session: each request kind by the path suffix under the session's route. */
interface StepOffers {
  kinds: { transport: WalletTransportGql; protocol: string; suffix: string }[];
  sandboxPersonas: Offers['sandboxPersonas'];
}

/**
 * The offers of a step that shows no documents, by workflow, revision, stage and environment (ADR 0045): a
 * published revision never changes, so they are a pure function of that key and the page's reads after the
 * first skip building and validating the step's request (DCQL). Only what does not name the session is kept;
 * each read builds its own session's paths. Per service instance (per deps), bounded.
 */
const offersCache = new WeakMap<object, Map<string, StepOffers>>();
const OFFERS_CACHE_MAX = 512;

/**
 * The running step's wallet requests and sandbox persons: derived from the same request the wallet-request
 * route builds for this step (requestForStep; a throwaway nonce: nothing is stored or issued).
 */
async function currentStepOffers(deps: Omit<SignerViewDeps, 'transport'>, s: SessionEntity): Promise<Offers> {
  let cache = offersCache.get(deps);
  if (!cache) {
    cache = new Map();
    offersCache.set(deps, cache);
  }
  const key = `${s.workflowId}\n${s.workflowRevision}\n${s.currentStage}\n${s.environment}`;
  let step = cache.get(key);
  if (!step) {
    const { sign, ...built } = await buildOffers(deps, s);
    step = built;
    // a sign step's request names the session's own documents: not cached
    if (!sign) {
      if (cache.size >= OFFERS_CACHE_MAX) cache.delete(cache.keys().next().value as string);
      cache.set(key, step);
    }
  }
  const base = `/t/sessions/${encodeURIComponent(s.id)}/wallet-request`;
  return {
    walletRequests: step.kinds.map(({ transport, protocol, suffix }) => ({
      transport,
      protocol,
      path: `${base}${suffix}`,
    })),
    sandboxPersonas: step.sandboxPersonas,
  };
}

async function buildOffers(
  deps: Omit<SignerViewDeps, 'transport'>,
  s: SessionEntity,
): Promise<StepOffers & { sign: boolean }> {
  const steps = toRevisionView(
    await deps.workflows.revision(deps.ds.manager, s.workflowId, s.workflowRevision),
  ).steps;
  const step = steps[s.currentStage];
  if (!step) return { kinds: [], sandboxPersonas: [], sign: false };
  const documents = PRIMITIVE_SPECS[step.primitive].needsDocuments
    ? (await deps.documents.forSession(deps.ds.manager, s.id, s.currentStage)).map(toDocumentView)
    : undefined;
  const { request } = requestForStep(step, randomToken(32), {
    documents,
    bindingClaims: bindingClaimsFor(steps, s.currentStage),
  });
  const kinds = [
    { transport: WalletTransportGql.dc_api, protocol: DC_API_PROTOCOL, suffix: '' },
    {
      transport: WalletTransportGql.dc_api_signed,
      protocol: SIGNED_DC_API_PROTOCOL,
      suffix: '/dc_api_signed',
    },
    ...(PRIMITIVE_SPECS[step.primitive].annexC && asksForMdoc(request)
      ? [{ transport: WalletTransportGql.org_iso_mdoc, protocol: ANNEX_C_PROTOCOL, suffix: '/org_iso_mdoc' }]
      : []),
    { transport: WalletTransportGql.cross_device, protocol: 'openid4vp', suffix: '/cross_device' },
  ];
  const sandboxPersonas =
    s.environment === 'sandbox' && deps.sandboxPersonas ? await deps.sandboxPersonas(request) : [];
  return { kinds, sandboxPersonas, sign: step.primitive === 'sign' };
}
