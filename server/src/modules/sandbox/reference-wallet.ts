// Owns the sandbox reference wallet: a software wallet holding the personas' PIDs (SD-JWT VC, and ISO mdoc via
// mdoc/mdoc-wallet.ts) that answers an OpenID4VP request like a real wallet would. The test person picked (a
// wallet choice, personas.ts) decides the format when the request offers alternatives. SD-JWT VC: parse the
// request (@openid4vc/openid4vp), match the DCQL query (dcql), disclose only what was asked, and bind the
// presentation to the holder key with a KB-JWT (@sd-jwt/sd-jwt-vc present()). Sandbox only: its credentials
// come from the sandbox issuer, which only the sandbox environment trusts.
import { generateKeyPairSync } from 'node:crypto';
import { getOpenid4vpClientId, parseOpenid4vpAuthorizationRequest } from '@openid4vc/openid4vp';
import { KBJwt } from '@sd-jwt/core';
import { digest, ES256 } from '@sd-jwt/crypto-nodejs';
import { SDJwtVcInstance } from '@sd-jwt/sd-jwt-vc';
import type { PresentationFrame } from '@sd-jwt/types';
import { DcqlQuery, type DcqlSdJwtVcCredential } from 'dcql';
import { base64url } from 'jose';
import type { DataSource } from 'typeorm';
import type { Clock } from '../../common/clock';
import { AppError } from '../../common/errors';
import { TX_HASH_ALG, transactionDataHash } from '../verification/transaction-data';
import { withoutTrustedAuthorities } from '../verification/trusted-authorities';
import { type MdocPresentInput, MdocReferenceWallet } from './mdoc/mdoc-wallet';
import { findPersona, findWalletChoice, WALLET_CHOICES } from './personas';
import { SandboxCredentialEntity } from './sandbox-credential.entity';
import { credentialIdOf, loadSandboxKey } from './sandbox-issuer';
import { readTransactionData } from './wallet-transaction-data';

/** Deviations from honest behaviour, so negative tests reuse the real wallet code path. */
export interface PresentOverrides {
  nonce?: string;
  aud?: string;
  /** KB-JWT iat, seconds since epoch. */
  iat?: number;
  /** Private JWK that signs the KB-JWT instead of the holder key. */
  kbKey?: JsonWebKey;
  /** Change a disclosed value after issuance; the KB-JWT then covers the tampered string (a lying holder). */
  tamperDisclosure?: boolean;
  /** Present without a KB-JWT. */
  omitKeyBinding?: boolean;
  /** Requested claims to leave undisclosed. */
  omitClaims?: string[];
  /** Present this credential (of the persona's holder key) instead of the stored one. */
  credential?: string;
  /** Leave `transaction_data_hashes` (and its alg) out of the KB-JWT although the request carried transaction data. */
  omitTransactionDataHashes?: boolean;
  /** Put these values in `transaction_data_hashes` instead of the computed ones. */
  transactionDataHashes?: string[];
  /** Hash these strings instead of the received ones (a wallet that shows and signs other documents or terms). */
  transactionDataSigned?: string[];
  /** `transaction_data_hashes_alg` to claim instead of sha-256. */
  transactionDataHashesAlg?: string;
}

export interface WalletResponse {
  vp_token: Record<string, string[]>;
}

type Json = Record<string, unknown>;
const sdAlg = 'sha-256';

export class ReferenceWallet {
  constructor(private readonly deps: { ds: DataSource; clock: Clock }) {}

  /**
   * The test persons to pick from (wallet choices: each persona's SD-JWT VC, and its mdoc documents). Given the
   * request, mdoc choices are listed only when it offers an mso_mdoc alternative.
   */
  async personas(
    request?: Record<string, unknown>,
  ): Promise<{ id: string; label: string; description: string }[]> {
    const mdocOffered = request === undefined || offersFormat(request, 'mso_mdoc');
    return WALLET_CHOICES.filter((c) => c.format !== 'mso_mdoc' || mdocOffered).map(
      ({ id, label, description }) => ({ id, label, description }),
    );
  }

  respond(input: {
    persona: string;
    request: Record<string, unknown>;
    origin: string;
  }): Promise<WalletResponse> {
    return this.present({ ...input, overrides: {} });
  }

  /**
   * ISO 18013-7 Annex C (org-iso-mdoc): answers the page's {deviceRequest, encryptionInfo}; an mdoc choice
   * with its documents, any other choice with the persona's mdocs.
   */
  respondAnnexC(input: {
    persona: string;
    request: { deviceRequest: string; encryptionInfo: string };
    origin: string;
  }): Promise<{ response: string }> {
    const choice = findWalletChoice(input.persona);
    if (!choice) throw new AppError('validation_failed', 'Unknown persona.', { param: 'persona' });
    return new MdocReferenceWallet(this.deps).presentAnnexC({
      persona: choice.persona,
      doctypes: choice.format === 'mso_mdoc' ? choice.doctypes : undefined,
      request: input.request,
      origin: input.origin,
    });
  }

  /**
   * Answers as a wallet choice (personas.ts WALLET_CHOICES): an mdoc choice presents one of its documents
   * (mdoc/mdoc-wallet.ts), an SD-JWT choice its PID (presentWith). A persona whose SD-JWT VC is not asked for,
   * in a request asking only for mdoc, presents its mdoc. `handover` is for the signed transports: the redirect
   * handover (cross-device) and the response-encryption key, both bound into an mdoc's SessionTranscript.
   * `overrides` are SD-JWT deviations (negative tests); an mdoc answer ignores them (see presentMdoc).
   */
  present(input: {
    persona: string;
    request: Record<string, unknown>;
    origin: string;
    overrides?: PresentOverrides;
    handover?: Pick<MdocPresentInput, 'redirect' | 'responseEncryptionJwk'>;
  }): Promise<WalletResponse> {
    const choice = findWalletChoice(input.persona);
    if (!choice) throw new AppError('validation_failed', 'Unknown persona.', { param: 'persona' });
    const { request, origin } = input;
    if (choice.format === 'mso_mdoc') {
      if (!offersFormat(request, 'mso_mdoc')) {
        throw new AppError('claims_missing', 'This test person presents mdoc; the request asks for no mdoc.');
      }
      return this.presentMdoc({
        persona: choice.persona,
        doctypes: choice.doctypes,
        request,
        origin,
        ...input.handover,
      });
    }
    if (asksOnlyForMdoc(request)) {
      return this.presentMdoc({ persona: choice.persona, request, origin, ...input.handover });
    }
    return this.presentWith({ persona: choice.persona, request, origin, overrides: input.overrides ?? {} });
  }

  /** Answers the request's mso_mdoc credential query with a DeviceResponse (see MdocPresentOverrides). */
  presentMdoc(input: MdocPresentInput): Promise<WalletResponse> {
    return new MdocReferenceWallet(this.deps).presentMdoc(input);
  }

  async presentWith(input: {
    persona: string;
    request: Record<string, unknown>;
    origin: string;
    overrides: PresentOverrides;
  }): Promise<WalletResponse> {
    const { overrides: o } = input;
    const persona = findPersona(input.persona);
    if (!persona) throw new AppError('validation_failed', 'Unknown persona.', { param: 'persona' });

    // Parse the request like a wallet: an unsigned DC API request carrying a DCQL query.
    let params: Json;
    try {
      const parsed = parseOpenid4vpAuthorizationRequest({ authorizationRequest: input.request });
      // a DC API request, or the verified payload of a signed cross-device request (signed-request-wallet.ts)
      if (parsed.type === 'jar') throw new Error('resolve the request object first');
      params = parsed.params as Json;
    } catch (e) {
      throw new AppError('validation_failed', 'The request is not an OpenID4VP DC API request.', {
        param: 'request',
        cause: e,
      });
    }
    let query: DcqlQuery;
    try {
      // the sandbox wallet does not filter by trusted_authorities (ADR 0050): it shows the verifier's refusal
      query = DcqlQuery.parse(withoutTrustedAuthorities(params.dcql_query) as DcqlQuery.Input);
      DcqlQuery.validate(query);
    } catch (e) {
      throw new AppError('validation_failed', 'The request has no valid dcql_query.', {
        param: 'request',
        cause: e,
      });
    }

    const credential = o.credential ?? (await this.storedCredential(persona.id));
    const holder = await loadSandboxKey(this.deps.ds, 'holder', persona.id);
    // the unknown_holder_key persona signs with a fresh key, never the one its credential is bound to (cnf.jwk)
    const kbKey =
      o.kbKey ??
      (persona.unknownHolderKey
        ? generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' })
        : holder.privateJwk);
    const sdjwt = new SDJwtVcInstance({
      hasher: digest,
      hashAlg: sdAlg,
      kbSigner: await ES256.getSigner(kbKey),
      kbSignAlg: 'ES256',
    });
    const claims = (await sdjwt.getClaims(credential)) as Json;
    const candidate: DcqlSdJwtVcCredential = {
      credential_format: 'dc+sd-jwt',
      vct: String(claims.vct),
      claims: claims as DcqlSdJwtVcCredential['claims'],
      cryptographic_holder_binding: true,
    };
    const result = DcqlQuery.query(query, [candidate]);
    if (!result.can_be_satisfied) {
      throw new AppError('claims_missing', 'This persona cannot answer the request.');
    }

    const nonce = o.nonce ?? String(params.nonce);
    const aud =
      o.aud ??
      getOpenid4vpClientId({
        responseMode: params.response_mode,
        origin: input.origin,
        clientId: params.client_id as string,
      }).effectiveClientId;
    const iat = o.iat ?? Math.floor(this.deps.clock.now().getTime() / 1000);

    const transactionData = readTransactionData(params, query);

    const vpToken: Record<string, string[]> = {};
    for (const [queryId, match] of Object.entries(result.credential_matches)) {
      if (!match.success) continue;
      // OpenID4VP B.3: hash the exact strings received for this credential, without decoding them.
      const txForQuery =
        o.transactionDataSigned ??
        transactionData.filter((t) => t.ids.includes(queryId)).map((t) => t.encoded);
      const txClaims: Json =
        txForQuery.length === 0 || o.omitTransactionDataHashes
          ? {}
          : {
              transaction_data_hashes: o.transactionDataHashes ?? txForQuery.map(transactionDataHash),
              transaction_data_hashes_alg: o.transactionDataHashesAlg ?? TX_HASH_ALG,
            };
      // Disclose exactly the claims of the first satisfied claim set (all requested claims without claim_sets).
      const output = match.valid_credentials[0].claims.valid_claim_sets[0].output as Json;
      const frame = frameOf(output, new Set(o.omitClaims ?? []));
      let presentation: string;
      if (o.omitKeyBinding) {
        presentation = await sdjwt.present(credential, frame);
      } else if (o.tamperDisclosure) {
        const tampered = tamperFirstDisclosure(await sdjwt.present(credential, frame));
        const kb = new KBJwt({
          header: { typ: 'kb+jwt', alg: 'ES256' },
          payload: { iat, aud, nonce, sd_hash: base64url.encode(digest(tampered, sdAlg)), ...txClaims },
        });
        presentation = tampered + (await kb.sign(await ES256.getSigner(kbKey)));
      } else {
        // The library spreads the KB payload, so transaction data claims pass through its narrower type.
        const payload = { iat, aud, nonce, ...txClaims } as { iat: number; aud: string; nonce: string };
        presentation = await sdjwt.present(credential, frame, { kb: { payload } });
      }
      vpToken[queryId] = [presentation];
    }
    return { vp_token: vpToken };
  }

  private async storedCredential(persona: string): Promise<string> {
    const row = await this.deps.ds
      .getRepository(SandboxCredentialEntity)
      .findOneBy({ id: credentialIdOf(persona) });
    if (!row) throw new AppError('not_found', 'The sandbox has not been seeded for this persona.');
    return row.credential;
  }
}

/** Whether the (unsigned or resolved) request's DCQL query has a credential query of this format. */
function offersFormat(request: Record<string, unknown>, format: string): boolean {
  const credentials = (request.dcql_query as { credentials?: { format?: unknown }[] } | undefined)
    ?.credentials;
  return Array.isArray(credentials) && credentials.some((c) => c.format === format);
}

/** Whether the (unsigned or resolved) request's DCQL query has mso_mdoc credential queries and no others. */
function asksOnlyForMdoc(request: Record<string, unknown>): boolean {
  const credentials = (request.dcql_query as { credentials?: { format?: unknown }[] } | undefined)
    ?.credentials;
  return (
    Array.isArray(credentials) && credentials.length > 0 && credentials.every((c) => c.format === 'mso_mdoc')
  );
}

/** Presentation frame disclosing every leaf of the matched claims output, minus omitted top-level claims. */
function frameOf(output: Json, omit: Set<string>): PresentationFrame<Json> {
  const frame: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(output)) {
    if (omit.has(k)) continue;
    frame[k] =
      v !== null && typeof v === 'object' && !Array.isArray(v) ? frameOf(v as Json, new Set()) : true;
  }
  return frame as PresentationFrame<Json>;
}

/** Replaces the value of the first disclosure of an SD-JWT without KB (`jwt~d1~...~dn~`). */
function tamperFirstDisclosure(sdJwt: string): string {
  const parts = sdJwt.split('~');
  if (parts.length < 3) throw new Error('nothing disclosed to tamper with');
  const [salt, key] = JSON.parse(new TextDecoder().decode(base64url.decode(parts[1] as string))) as [
    string,
    string,
  ];
  parts[1] = base64url.encode(JSON.stringify([salt, key, 'Tampered']));
  return parts.join('~');
}
