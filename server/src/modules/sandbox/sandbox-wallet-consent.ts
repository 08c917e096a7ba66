// Owns what the sandbox reference wallet shows before the person answers (issue 19, ADR 0040): the hosted
// page hands the wallet the request it received (a signed DC API request object, or a cross-device
// openid4vp:// link whose request_uri the wallet fetches), the wallet verifies it as it would before answering
// (signature, chain, client_id binding, verifier_info against the signer) and answers what its consent screen
// shows: the relying party's name and purpose from the registration certificate, the service as intermediary
// (the host the request is answered to), the claims asked for, and what the person signs (issue 29): the
// documents (label, SHA-256) of a sign step's or the terms of an attestation step's transaction_data, which
// the wallet signs over. Nothing here comes from the page's data.
import type { Response } from 'express';
import { AppError } from '../../common/errors';
import {
  type AppRequest,
  jsonObjectBody,
  type RouteRegistry,
  requireString,
  sendJson,
} from '../../common/http';
import { decodeTransactionData, TX_TYPE_ATTEST, TX_TYPE_SIGN } from '../verification/transaction-data';
import { relyingPartyShown, type SignedRequestWallet } from './signed-request-wallet';

type Json = Record<string, unknown>;

/** The consent screen of the reference wallet for a verified request. */
export interface WalletShown {
  /**
   * From verifier_info (the registration certificate); null when the request carries none. `via`: the
   * intermediary's name when the certificate names one (intermediary mode, ADR 0053), else null.
   */
  relying_party: { name: string; purpose: string | null; via: string | null } | null;
  /** The host the answer goes to: the hosted verifier acting for the relying party. */
  intermediary: string;
  /** The claim names the request asks for (last path element of each DCQL claim), in order, once each. */
  claims: string[];
  /** Sign step: the documents the wallet signs (from the request's transaction_data); else empty. */
  documents: { label: string; sha256: string }[];
  /** Attestation step: the terms the wallet signs its approval of, and their SHA-256; else null. */
  terms: { text: string; sha256: string } | null;
}

/** What the request's transaction_data asks the person to sign (strings that do not decode are skipped). */
function signedContent(payload: Json): Pick<WalletShown, 'documents' | 'terms'> {
  const out: Pick<WalletShown, 'documents' | 'terms'> = { documents: [], terms: null };
  const list = Array.isArray(payload.transaction_data) ? payload.transaction_data : [];
  for (const encoded of list) {
    if (typeof encoded !== 'string') continue;
    let td: Json;
    try {
      td = decodeTransactionData(encoded);
    } catch {
      continue;
    }
    if (td.type === TX_TYPE_SIGN && Array.isArray(td.documents)) {
      for (const d of td.documents as Json[])
        if (typeof d?.label === 'string' && typeof d.sha256 === 'string')
          out.documents.push({ label: d.label, sha256: d.sha256 });
    } else if (td.type === TX_TYPE_ATTEST && typeof td.terms === 'string') {
      out.terms = { text: td.terms, sha256: String(td.terms_sha256 ?? '') };
    }
  }
  return out;
}

const hostOf = (uri: unknown): string => {
  try {
    return typeof uri === 'string' ? new URL(uri).hostname : '';
  } catch {
    return '';
  }
};

/** What the wallet shows for a request it verified. */
export function walletShown(payload: Json): WalletShown {
  const origins = Array.isArray(payload.expected_origins) ? payload.expected_origins : [];
  const claims = new Set<string>();
  const credentials = (payload.dcql_query as { credentials?: { claims?: { path?: unknown[] }[] }[] })
    ?.credentials;
  for (const c of credentials ?? []) {
    for (const claim of c.claims ?? []) {
      const last = claim.path?.[claim.path.length - 1];
      if (typeof last === 'string') claims.add(last);
    }
  }
  return {
    relying_party: relyingPartyShown(payload) ?? null,
    intermediary: hostOf(payload.response_uri) || hostOf(origins[0]),
    claims: [...claims],
    ...signedContent(payload),
  };
}

const signedData = (body: Json): Json => {
  const request = body.request;
  if (request === null || typeof request !== 'object' || typeof (request as Json).request !== 'string') {
    throw new AppError('validation_failed', 'request must be the signed request data ({request: <JWT>}).', {
      param: 'request',
    });
  }
  return request as Json;
};

/** Sandbox tooling: the reference wallet reads a request (consent screen), and answers a signed DC API one. */
export function registerSandboxWalletConsentRoutes(reg: RouteRegistry, wallet: SignedRequestWallet): void {
  reg.add({
    method: 'post',
    path: '/sandbox/wallet/read',
    auth: 'sandbox',
    summary:
      'The reference wallet verifies a request ({uri} cross-device, or {request, origin} signed DC API) and answers what it shows: relying party, purpose, intermediary',
    handler: async (req: AppRequest, res: Response) => {
      const body = jsonObjectBody(req);
      const payload =
        typeof body.uri === 'string'
          ? (await wallet.fetchRequest(body.uri)).payload
          : await wallet.readSignedDcApi({ data: signedData(body), origin: requireString(body, 'origin') });
      sendJson(res, 200, walletShown(payload));
    },
  });
  reg.add({
    method: 'post',
    path: '/sandbox/wallet/respond-signed',
    auth: 'sandbox',
    summary: 'The reference wallet answers a signed DC API request ({request: <JWT>}) as the given persona',
    handler: async (req: AppRequest, res: Response) => {
      const body = jsonObjectBody(req);
      sendJson(
        res,
        200,
        await wallet.answerSignedDcApi({
          persona: requireString(body, 'persona'),
          data: signedData(body),
          origin: requireString(body, 'origin'),
        }),
      );
    },
  });
}
