// Owns verification of an ISO mdoc (`mso_mdoc`) answer to one of our OpenID4VP requests: the vp_token entry
// (base64url DeviceResponse), issuer trust (document signer certificate -> IACA trusted for the docType in this
// environment), the issuer signature over the MSO, the value digests of every disclosed element, the MSO
// validity, the docType against the query, the requested elements, and the device signature over the
// SessionTranscript of this request (OpenID4VP DC API handover: origin + nonce [+ encryption key thumbprint], or
// the redirect handover), and for sign/attestation the transaction data hashes in the device-signed namespaces
// (which that device signature covers and the MSO's KeyAuthorizations must authorize). @owf/mdoc does the
// CBOR/COSE work and reports each check; this class decides the order and maps every failure to a stable code
// of the closed list. mdoc carries no status list here: the result records status 'not_applicable' (see
// docs/adr/0004-mdoc-verification.md).

import { timingSafeEqual } from 'node:crypto';
import {
  cborDecode,
  cborEncode,
  DataItem,
  DateOnly,
  DeviceAuthentication,
  type DeviceNamespaces,
  DeviceResponse,
  type Document,
  type IssuerSignedItem,
  type KeyAuthorizations,
  type MobileSecurityObject,
  SessionTranscript,
  type VerificationAssessment,
  Verifier,
} from '@owf/mdoc';
import {
  type DcqlCredentialQuery,
  type DcqlMdocCredential,
  DcqlPresentationResult,
  type DcqlQuery,
} from 'dcql';
import { base64url, calculateJwkThumbprint, type JWK } from 'jose';
import { AppError, type ErrorCode } from '../../../common/errors';
import type { Environment } from '../../../config/config';
import { answeredCredentialQuery, DOCUMENT_STATUS, storedDcqlQuery } from '../dcql';
import {
  decodeTransactionData,
  MDOC_TX_HASH_ALG_ELEMENT,
  MDOC_TX_HASH_ELEMENT,
  TX_HASH_ALG,
  TX_TYPES,
  transactionDataDigest,
} from '../transaction-data';
import { dcqlPresentations } from '../vp-token';
import {
  ANNEX_C_PROTOCOL,
  type AnnexCStoredRequest,
  annexCSessionTranscript,
  isAnnexCRequest,
} from './annex-c';
import { coseKeyToEcJwk, mdocContext, verifyIacaChain, x509Of } from './mdoc-context';
import { findMdocDocType, MDOC_FORMAT } from './mdoc-query';
import type { MdocTrustStore } from './mdoc-trust';

/** What document_status (and the audit record's status) say for an mdoc: it has no status list to check. */
export const MDOC_STATUS_NOT_APPLICABLE = 'not_applicable';

export interface MdocVerifiedPresentation {
  format: 'mso_mdoc';
  /** Subject DN of the document signer certificate. */
  issuer: string;
  /** The docType. */
  vct: string;
  /** Exactly the requested elements (keyed by element name; `namespace.element` outside the docType's own namespace), plus document_status. */
  claims: Record<string, unknown>;
  /** RFC 7638 SHA-256 thumbprint of the device key (MSO deviceKeyInfo), base64url. */
  holderKeyThumbprint: string;
  statusChecked: { status: typeof MDOC_STATUS_NOT_APPLICABLE; reason: string };
  /** The device key (MSO deviceKeyInfo), public members only. */
  holderJwk: JWK;
  /** The verification time (`now` of the input): the reference time of age computations. */
  verifiedAt: Date;
  /** The exact vp_token entry (base64url DeviceResponse): evidence. */
  presentation: string;
  /** 'org-iso-mdoc' for an Annex C answer (absent for OpenID4VP). */
  protocol?: 'org-iso-mdoc';
  /**
   * Always '' for mdoc: the holder's proof is the DeviceSignature inside `presentation` (there is no KB-JWT).
   * Present so the result has the SD-JWT result's shape.
   */
  keyBindingJwt: '';
  /**
   * The holder's signature, verifiable offline (see mdocHolderSignature): base64url of the untagged COSE_Sign1
   * DeviceSignature with its detached payload attached (DeviceAuthenticationBytes).
   */
  deviceSignature: string;
  /** The request's transaction_data strings for the answered query whose hashes the device signature covers. */
  transactionData: string[];
  /** Names of the checks that passed, in order (evidence for the audit record). */
  checks: string[];
  /** The certificate path that was trusted. */
  issuerChain: { documentSigner: string; iaca: string };
}

export interface MdocVerifyInput {
  /** The exact request sent to the wallet. */
  request: Record<string, unknown>;
  expectedNonce: string;
  /** DC API: the origin of the hosted page as the browser reports it (no `origin:` prefix). */
  origin?: string;
  /** Redirect / cross-device (OpenID4VPHandover): the client_id (with prefix) and response_uri of the request. */
  redirect?: { clientId: string; responseUri: string };
  /** The verifier's response-encryption public JWK when the response came encrypted (its thumbprint is in the handover). */
  responseEncryptionJwk?: JWK;
  environment: Environment;
  /** The credential routes whose IACAs may validate the document (ADR 0036); undefined: any route. */
  routes?: readonly string[];
  response: unknown;
  now: Date;
}

export interface MdocPresentationVerifierDeps {
  trust: MdocTrustStore;
  /** Clock skew tolerated for the MSO validity, in seconds. */
  skewSeconds?: number;
}

type Json = Record<string, unknown>;
const fail = (code: ErrorCode, detail: string, cause?: unknown): never => {
  throw new AppError(code, detail, { cause });
};
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The SessionTranscript this request binds the device signature to (OpenID4VP 1.0 Appendix B.2.6). */
export async function mdocSessionTranscript(input: {
  nonce: string;
  origin?: string;
  redirect?: { clientId: string; responseUri: string };
  responseEncryptionJwk?: JWK;
}): Promise<SessionTranscript> {
  const jwkThumbprint = input.responseEncryptionJwk
    ? base64url.decode(await calculateJwkThumbprint(input.responseEncryptionJwk, 'sha256'))
    : undefined;
  if (input.redirect) {
    return SessionTranscript.forOid4Vp(
      {
        clientId: input.redirect.clientId,
        responseUri: input.redirect.responseUri,
        nonce: input.nonce,
        jwkThumbprint,
      },
      mdocContext,
    );
  }
  if (!input.origin)
    throw new Error('an mdoc session transcript needs the origin (DC API) or the redirect handover');
  return SessionTranscript.forOid4VpDcApi(
    { origin: input.origin, nonce: input.nonce, jwkThumbprint },
    mdocContext,
  );
}

/**
 * Dispatch by format: whether the wallet's (decrypted) answer is for one of the request's mso_mdoc credential
 * queries. The vp_token keys are credential query ids; the query says the format.
 */
export function answersMdocQuery(request: Record<string, unknown>, response: unknown): boolean {
  let vp = isObject(response) ? response.vp_token : undefined;
  if (typeof vp === 'string') {
    try {
      vp = JSON.parse(vp);
    } catch {
      return false;
    }
  }
  if (!isObject(vp)) return false;
  const credentials = (
    request.dcql_query as { credentials?: { id?: unknown; format?: unknown }[] } | undefined
  )?.credentials;
  const mdocIds = new Set((credentials ?? []).filter((c) => c.format === MDOC_FORMAT).map((c) => c.id));
  return Object.keys(vp).some((id) => mdocIds.has(id));
}

/**
 * The handover parameters of one of our stored requests: DC API modes bind the page origin (the audience
 * `origin:<origin>` without its prefix); direct_post modes bind client_id and response_uri; the encrypted modes
 * (dc_api.jwt, direct_post.jwt) also bind the thumbprint of the response-encryption key sent in
 * client_metadata.jwks.
 */
export function mdocHandoverOf(
  request: Record<string, unknown>,
  expectedAudience: string,
): Pick<MdocVerifyInput, 'origin' | 'redirect' | 'responseEncryptionJwk'> {
  const mode = String(request.response_mode ?? '');
  const keys = (
    (request.client_metadata as { jwks?: { keys?: unknown[] } } | undefined)?.jwks?.keys ?? []
  ).filter(isObject);
  const encryptionJwk = mode.endsWith('.jwt') ? (keys.find((k) => k.use === 'enc') ?? keys[0]) : undefined;
  const responseEncryptionJwk = encryptionJwk ? publicMembers(encryptionJwk) : undefined;
  if (mode.startsWith('direct_post')) {
    return {
      redirect: { clientId: String(request.client_id), responseUri: String(request.response_uri) },
      responseEncryptionJwk,
    };
  }
  return { origin: expectedAudience.replace(/^origin:/, ''), responseEncryptionJwk };
}

/** The RFC 7638 members of a public JWK (what its thumbprint is computed over). */
function publicMembers(jwk: Json): JWK {
  const { kty, crv, x, y, n, e } = jwk as Record<string, string | undefined>;
  return Object.fromEntries(
    Object.entries({ kty, crv, x, y, n, e }).filter(([, v]) => v !== undefined),
  ) as JWK;
}

export class MdocPresentationVerifier {
  private readonly skew: number;

  constructor(private readonly deps: MdocPresentationVerifierDeps) {
    this.skew = deps.skewSeconds ?? 5;
  }

  async verify(input: MdocVerifyInput): Promise<MdocVerifiedPresentation> {
    const checks: string[] = [];
    // Our own request: a failure here is a bug on our side, not the wallet's, so it is a plain Error.
    if (input.request.nonce !== input.expectedNonce)
      throw new Error('request nonce differs from expected nonce');
    const dcqlQuery = storedDcqlQuery(input.request.dcql_query);
    const mdocIds = dcqlQuery.credentials.filter((c) => c.format === MDOC_FORMAT).map((c) => c.id);
    if (mdocIds.length === 0) throw new Error('the request has no mso_mdoc credential query');

    // 1. Response shape (OpenID4VP library): exactly one presentation, answering one of our mdoc queries.
    const { query, presented } = this.presentationFrom(input, dcqlQuery);
    const bytes = decodeB64u(presented);
    const transcript = await mdocSessionTranscript({
      nonce: input.expectedNonce,
      origin: input.origin,
      redirect: input.redirect,
      responseEncryptionJwk: input.responseEncryptionJwk,
    });
    return this.verifyDeviceResponse({
      bytes,
      presented,
      request: input.request,
      dcqlQuery,
      queryFor: () => query,
      transcript,
      environment: input.environment,
      routes: input.routes,
      now: input.now,
      checks,
    });
  }

  /**
   * An ISO 18013-7 Annex C answer (org-iso-mdoc), already opened (annex-c.ts openAnnexCResponse): the same
   * checks as an OpenID4VP mdoc answer, over the Annex C SessionTranscript of the stored request. The query
   * answered is the one of the document's docType (the DeviceRequest asked for each mdoc alternative).
   */
  async verifyAnnexC(input: {
    request: Record<string, unknown>;
    expectedNonce: string;
    deviceResponse: Uint8Array;
    environment: Environment;
    routes?: readonly string[];
    now: Date;
  }): Promise<MdocVerifiedPresentation> {
    const stored = input.request as unknown as AnnexCStoredRequest;
    if (!isAnnexCRequest(input.request) || stored.nonce !== input.expectedNonce)
      throw new Error('not our Annex C request, or its nonce differs');
    const dcqlQuery = storedDcqlQuery(stored.dcql_query);
    return this.verifyDeviceResponse({
      bytes: input.deviceResponse,
      presented: base64url.encode(input.deviceResponse),
      request: input.request,
      dcqlQuery,
      queryFor: (docType) => {
        const q = dcqlQuery.credentials.find(
          (c) => c.format === MDOC_FORMAT && c.meta?.doctype_value === docType,
        );
        return q ?? fail('credential_type_invalid', 'The document type (docType) was not requested.');
      },
      transcript: annexCSessionTranscript(stored.encryption_info, stored.origin),
      environment: input.environment,
      routes: input.routes,
      now: input.now,
      checks: ['annex_c_decrypted'],
    }).then((v) => ({ ...v, protocol: ANNEX_C_PROTOCOL }));
  }

  private async verifyDeviceResponse(input: {
    bytes: Uint8Array;
    presented: string;
    request: Record<string, unknown>;
    dcqlQuery: DcqlQuery;
    queryFor: (docType: string) => DcqlCredentialQuery;
    transcript: SessionTranscript;
    environment: Environment;
    routes?: readonly string[];
    now: Date;
    checks: string[];
  }): Promise<MdocVerifiedPresentation> {
    const { bytes, presented, dcqlQuery, transcript, checks } = input;
    requireDeviceSigned(bytes);
    let response: DeviceResponse;
    try {
      response = DeviceResponse.decode(bytes);
    } catch (e) {
      return fail('presentation_malformed', 'The vp_token entry is not an mdoc DeviceResponse.', e);
    }
    if (response.status !== 0) fail('presentation_malformed', 'The DeviceResponse reports an error status.');
    const documents = response.documents ?? [];
    if (documents.length === 0) fail('claims_missing', 'The DeviceResponse holds no document.');
    if (documents.length !== 1) fail('presentation_malformed', 'Exactly one mdoc document is expected.');
    const doc = documents[0] as Document;
    let mso: MobileSecurityObject;
    try {
      mso = doc.issuerSigned.issuerAuth.mobileSecurityObject;
    } catch (e) {
      return fail('presentation_malformed', 'The issuer-signed MSO cannot be decoded.', e);
    }
    checks.push('response_shape');

    // 2. Issuer trust comes first: the document signer must chain to an IACA trusted for this docType here.
    // The docType used to pick the anchors is the signed one (MSO); it is compared to the query below.
    // Trust belongs to a route (ADR 0036): the IACAs of the step's allowed routes, tried route by route, so the
    // document is attributed to the first route whose IACA its signer chains to.
    const stored = await this.deps.trust.routeAnchors(input.environment, mso.docType, input.routes);
    const x5chain = doc.issuerSigned.issuerAuth.certificateChain;
    const byRoute = new Map<string, Uint8Array[]>();
    for (const a of stored) byRoute.set(a.routeId, [...(byRoute.get(a.routeId) ?? []), a.der]);
    let anchors: Uint8Array[] | undefined;
    let lastError: unknown;
    for (const routeAnchors of byRoute.values()) {
      try {
        await verifyIacaChain({ trustedCertificates: routeAnchors, x5chain, now: input.now });
        anchors = routeAnchors;
        break;
      } catch (e) {
        lastError = e;
      }
    }
    if (!anchors) {
      const tried = input.routes === undefined ? 'any route' : `route ${input.routes.join(', ') || '(none)'}`;
      return fail(
        'issuer_untrusted',
        `The mdoc issuer is not trusted for this document type and environment on ${tried}.`,
        lastError,
      );
    }
    checks.push('issuer_trusted');

    // 3. The library's checks (issuer signature, MSO validity, value digests, device signature), collected.
    const failed: VerificationAssessment[] = [];
    try {
      await Verifier.verifyDeviceResponse(
        {
          deviceResponse: response,
          sessionTranscript: transcript,
          trustedCertificates: anchors,
          now: input.now,
          skewSeconds: this.skew,
          onCheck: (a) => {
            if (a.status === 'FAILED') failed.push(a);
          },
        },
        mdocContext,
      );
    } catch (e) {
      return fail('presentation_malformed', 'The mdoc presentation cannot be verified.', e);
    }
    const failedWhere = (category: VerificationAssessment['category'], ...words: string[]) =>
      failed.find(
        (a) => a.category === category && (words.length === 0 || words.some((w) => a.check.includes(w))),
      );

    if (failedWhere('ISSUER_AUTH', 'certificate must be valid', 'Country name')) {
      fail('issuer_untrusted', 'The mdoc issuer certificate is not acceptable.');
    }
    if (failedWhere('ISSUER_AUTH', 'signature')) {
      fail('credential_signature_invalid', 'The issuer signature over the MSO is invalid.');
    }
    // A valid signature made when the document signer certificate was not (yet, or any longer) valid: the
    // MSO's `signed` date lies outside the certificate's notBefore..notAfter (ISO 18013-5 9.3.1).
    if (failedWhere('ISSUER_AUTH', 'signed date')) {
      fail(
        'issuer_certificate_invalid_at_signing',
        'The MSO was signed outside the validity period of its document signer certificate.',
      );
    }
    checks.push('issuer_signature');

    // 4. Type: the document's docType is the signed one and was asked for.
    const query = input.queryFor(mso.docType);
    const doctypes = (query as DcqlCredentialQuery.Mdoc).meta?.doctype_value;
    if (doc.docType !== mso.docType)
      fail('credential_type_invalid', 'The document docType differs from the MSO.');
    if (doctypes !== undefined && doctypes !== mso.docType) {
      fail('credential_type_invalid', 'The document type (docType) was not requested.');
    }
    checks.push('credential_type');

    // 5. Validity of the MSO at `now` (the library checks it too; this gives the precise code and detail).
    const nowMs = input.now.getTime();
    const { validFrom, validUntil } = mso.validityInfo;
    if (validUntil.getTime() + this.skew * 1000 <= nowMs) fail('credential_expired', 'The mdoc has expired.');
    if (validFrom.getTime() - this.skew * 1000 > nowMs)
      fail('credential_expired', 'The mdoc is not valid yet.');
    if (failedWhere('ISSUER_AUTH'))
      fail('credential_expired', 'The MSO is not valid at the time of verification.');
    if ((mso.decodedStructure as unknown as Map<string, unknown>).has('status')) {
      // An issuer that gives a status reference expects it to be checked; we cannot (yet), so we do not accept.
      fail('status_check_failed', 'The mdoc carries a status reference this verifier cannot check.');
    }
    checks.push('credential_validity');

    // 6. Every disclosed element matches its digest in the MSO (a changed value is a tampered disclosure).
    if (failedWhere('DATA_INTEGRITY'))
      fail('disclosure_invalid', 'A disclosed element does not match the MSO digests.');
    const namespaces = disclosedNamespaces(doc);
    checks.push('value_digests');

    // 7. The disclosed elements answer the query.
    const answer = answerQuery(query as DcqlCredentialQuery.Mdoc, dcqlQuery, mso.docType, namespaces);
    checks.push('dcql_query');

    // 8. Device authentication: a signature by the MSO device key over DeviceAuthentication, which includes
    // this request's SessionTranscript. A wrong nonce, a wrong origin and a wrong key all make that signature
    // fail and cannot be told apart (the transcript is not transmitted), so all are key_binding_invalid.
    const deviceAuth = doc.deviceSigned.deviceAuth;
    if (!deviceAuth.deviceSignature && !deviceAuth.deviceMac) {
      fail('key_binding_missing', 'The DeviceAuth holds neither a device signature nor a device MAC.');
    }
    if (!deviceAuth.deviceSignature) {
      fail('key_binding_invalid', 'Only device signatures (not device MACs) are accepted.');
    }
    if (failedWhere('DEVICE_AUTH')) {
      fail(
        'key_binding_invalid',
        "The device signature does not cover this request's session transcript with the device key.",
      );
    }
    checks.push('device_signature', 'session_transcript');
    const remaining = failed[0];
    if (remaining) fail('presentation_malformed', `The mdoc presentation failed a check: ${remaining.check}`);

    // 9. Device-signed data (covered by the device signature just verified: DeviceAuthentication includes the
    // DeviceNameSpaces): the issuer must authorize the device key to sign it (MSO KeyAuthorizations,
    // ISO 18013-5 9.1.2.4), and the transaction data of the request must be there, exactly.
    const deviceNamespaces = doc.deviceSigned.deviceNamespaces;
    if (deviceNamespaces.deviceNamespaces.size > 0) {
      requireAuthorized(deviceNamespaces, mso.deviceKeyInfo.keyAuthorizations);
      checks.push('device_key_authorizations');
    }
    const transactionData = checkTransactionData(input.request, query.id, deviceNamespaces);
    if (transactionData.length > 0) checks.push('transaction_data');

    checks.push('status_not_applicable');
    const documentSigner = x509Of(doc.issuerSigned.issuerAuth.certificate);
    const holderJwk = coseKeyToEcJwk(mso.deviceKeyInfo.deviceKey) as JWK;
    return {
      format: MDOC_FORMAT,
      issuer: documentSigner.subject,
      vct: mso.docType,
      claims: { ...answer, [DOCUMENT_STATUS]: MDOC_STATUS_NOT_APPLICABLE },
      holderKeyThumbprint: await calculateJwkThumbprint(holderJwk, 'sha256'),
      statusChecked: {
        status: MDOC_STATUS_NOT_APPLICABLE,
        reason: 'The mdoc has no status reference; its validity period (validUntil) bounds it.',
      },
      holderJwk,
      verifiedAt: input.now,
      presentation: presented,
      keyBindingJwt: '',
      deviceSignature: mdocHolderSignature(doc, transcript),
      transactionData,
      checks,
      issuerChain: { documentSigner: documentSigner.subject, iaca: documentSigner.issuer },
    };
  }

  private presentationFrom(
    input: MdocVerifyInput,
    dcqlQuery: DcqlQuery,
  ): { query: DcqlCredentialQuery; presented: string } {
    const presentations = dcqlPresentations(input.request, input.response);
    // Unknown ids, several alternatives or none (credential_sets): presentation_malformed / claims_missing.
    const query = answeredCredentialQuery(dcqlQuery, Object.keys(presentations));
    if (query.format !== MDOC_FORMAT)
      fail('presentation_malformed', 'Exactly one mdoc credential is expected in the vp_token.');
    const entries = presentations[query.id] as unknown[];
    if (entries.length !== 1 || typeof entries[0] !== 'string') {
      fail('presentation_malformed', 'Exactly one DeviceResponse string is expected.');
    }
    return { query, presented: entries[0] as string };
  }
}

/**
 * Every device-signed element must be authorized by the MSO's KeyAuthorizations: its whole namespace
 * (`nameSpaces`) or the element itself (`dataElements`). No KeyAuthorizations authorizes nothing.
 */
function requireAuthorized(deviceNamespaces: DeviceNamespaces, auth: KeyAuthorizations | undefined): void {
  const namespaces = new Set(auth?.namespaces ?? []);
  const elements = auth?.dataElements ?? new Map<string, string[]>();
  for (const [ns, items] of deviceNamespaces.deviceNamespaces) {
    if (namespaces.has(ns)) continue;
    for (const element of items.deviceSignedItems.keys()) {
      if (!(elements.get(ns) ?? []).includes(element)) {
        fail(
          'device_signed_unauthorized',
          `The issuer does not authorize the device key to sign ${ns}/${element} (MSO KeyAuthorizations).`,
        );
      }
    }
  }
}

/**
 * The transaction data of the request for the answered mdoc query, bound in DeviceSigned (our convention, see
 * transaction-data.ts): per entry, the namespace named like its type holds exactly `transaction_data_hash` =
 * SHA-256 over the exact STORED string and `transaction_data_hash_alg` = "sha-256". A namespace of one of our
 * types that the request did not send for this query is refused too (no missing, no extra). Returns the strings
 * covered (empty when the request sent none for this query).
 */
function checkTransactionData(request: Json, queryId: string, deviceNamespaces: DeviceNamespaces): string[] {
  const sent = Array.isArray(request.transaction_data) ? (request.transaction_data as unknown[]) : [];
  // Our own stored request: its entries decode (a failure here is our bug, hence a plain Error).
  const ours = sent
    .filter((s): s is string => typeof s === 'string')
    .map((encoded) => ({ encoded, decoded: decodeTransactionData(encoded) }))
    .filter(({ decoded }) => ((decoded.credential_ids as unknown[] | undefined) ?? []).includes(queryId));
  const types = ours.map(({ decoded }) => String(decoded.type));
  if (new Set(types).size !== types.length) {
    throw new Error(
      'one device-signed namespace holds one hash: a request sends one entry per type and query',
    );
  }
  const signed = deviceNamespaces.deviceNamespaces;
  for (const ns of signed.keys()) {
    if ((TX_TYPES as readonly string[]).includes(ns) && !types.includes(ns)) {
      fail(
        'transaction_data_mismatch',
        `The device signed ${ns} transaction data this request did not send.`,
      );
    }
  }
  for (const { encoded, decoded } of ours) {
    const items = signed.get(String(decoded.type))?.deviceSignedItems;
    if (!items?.has(MDOC_TX_HASH_ELEMENT)) {
      fail(
        'transaction_data_missing',
        `The device-signed data has no ${MDOC_TX_HASH_ELEMENT} for the documents or terms (${String(decoded.type)}).`,
      );
    }
    const elements = [...(items as Map<string, unknown>).keys()];
    if (elements.some((e) => e !== MDOC_TX_HASH_ELEMENT && e !== MDOC_TX_HASH_ALG_ELEMENT)) {
      fail('transaction_data_mismatch', `The ${String(decoded.type)} namespace holds unexpected elements.`);
    }
    if (items?.get(MDOC_TX_HASH_ALG_ELEMENT) !== TX_HASH_ALG) {
      fail('transaction_data_mismatch', `${MDOC_TX_HASH_ALG_ELEMENT} must be ${TX_HASH_ALG}.`);
    }
    const got = items?.get(MDOC_TX_HASH_ELEMENT);
    const expected = transactionDataDigest(encoded);
    if (!(got instanceof Uint8Array) || got.length !== expected.length || !timingSafeEqual(got, expected)) {
      fail(
        'transaction_data_mismatch',
        'The device signed other transaction data than this request sent (documents or terms differ).',
      );
    }
  }
  return ours.map(({ encoded }) => encoded);
}

/**
 * The holder signature a business can verify offline, like the SD-JWT KB-JWT: the document's DeviceSignature
 * (an untagged COSE_Sign1 `[protected, unprotected, payload, signature]`, ES256 by the MSO device key) with its
 * detached payload attached, so that it verifies with any COSE library and the holder key alone. The payload is
 * DeviceAuthenticationBytes = #6.24(bstr .cbor ["DeviceAuthentication", SessionTranscript, docType,
 * #6.24(bstr .cbor DeviceNameSpaces)]), which holds the transaction data hash (ISO 18013-5 9.1.3.4; attaching a
 * detached payload does not change the COSE Sig_structure, so the signature is the wallet's, unchanged).
 */
export function mdocHolderSignature(doc: Document, transcript: SessionTranscript): string {
  const signature = doc.deviceSigned.deviceAuth.deviceSignature;
  if (!signature) throw new Error('a verified mdoc has a device signature');
  const payload = DeviceAuthentication.create({
    sessionTranscript: transcript,
    docType: doc.docType,
    deviceNamespaces: doc.deviceSigned.deviceNamespaces,
  }).encode({ asDataItem: true });
  const [protectedHeader, unprotectedHeader, , sig] = signature.encodedStructure;
  return base64url.encode(cborEncode([protectedHeader, unprotectedHeader, payload, sig]));
}

/**
 * Reads a holder signature made by mdocHolderSignature: the COSE_Sign1 parts, and its payload decoded
 * (DeviceAuthentication: SessionTranscript, docType, device-signed namespaces as JSON values).
 */
export function readMdocHolderSignature(holderSignature: string): {
  protectedHeader: Uint8Array;
  payload: Uint8Array;
  signature: Uint8Array;
  deviceAuthentication: { docType: string; deviceNamespaces: Record<string, Record<string, unknown>> };
} {
  const [protectedHeader, , payload, signature] = cborDecode<[Uint8Array, unknown, Uint8Array, Uint8Array]>(
    base64url.decode(holderSignature),
  );
  const inner = cborDecode<DataItem<unknown[]> | unknown[]>(payload, { unwrapTopLevelDataItem: false });
  const [, , docType, namespacesItem] = (inner instanceof DataItem ? inner.data : inner) as [
    string,
    unknown,
    string,
    DataItem<Map<string, Map<string, unknown>>>,
  ];
  return {
    protectedHeader,
    payload,
    signature,
    deviceAuthentication: {
      docType,
      deviceNamespaces: toJson(namespacesItem.data) as Record<string, Record<string, unknown>>,
    },
  };
}

function decodeB64u(s: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]+$/.test(s)) fail('presentation_malformed', 'The DeviceResponse is not base64url.');
  try {
    return base64url.decode(s);
  } catch (e) {
    return fail('presentation_malformed', 'The DeviceResponse is not base64url.', e);
  }
}

/** A document without DeviceSigned has no holder binding at all: key_binding_missing, before any parsing. */
function requireDeviceSigned(bytes: Uint8Array): void {
  let raw: unknown;
  try {
    raw = cborDecode(bytes);
  } catch (e) {
    fail('presentation_malformed', 'The DeviceResponse is not CBOR.', e);
  }
  const documents = raw instanceof Map ? raw.get('documents') : undefined;
  if (!Array.isArray(documents)) return; // the structural decode reports it
  for (const d of documents) {
    if (d instanceof Map && !d.has('deviceSigned'))
      fail('key_binding_missing', 'The mdoc has no DeviceSigned part.');
  }
}

/** Issuer-signed elements by namespace, as JSON values; a repeated element is refused (which one would count?). */
function disclosedNamespaces(doc: Document): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  const namespaces: Map<string, IssuerSignedItem[]> =
    doc.issuerSigned.issuerNamespaces?.issuerNamespaces ?? new Map();
  for (const [ns, items] of namespaces) {
    const elements: Record<string, unknown> = {};
    for (const item of items) {
      if (Object.hasOwn(elements, item.elementIdentifier)) {
        fail('disclosure_invalid', `The element ${ns}/${item.elementIdentifier} is disclosed twice.`);
      }
      elements[item.elementIdentifier] = toJson(item.elementValue);
    }
    out[ns] = elements;
  }
  return out;
}

/** CBOR element values as JSON: full-date and tdate as ISO strings, byte strings base64url, maps as objects. */
export function toJson(v: unknown): unknown {
  if (v instanceof DateOnly) return v.toISOString();
  if (v instanceof Date) return v.toISOString();
  if (v instanceof Uint8Array) return base64url.encode(v);
  if (v instanceof Map) return Object.fromEntries([...v.entries()].map(([k, x]) => [String(k), toJson(x)]));
  if (Array.isArray(v)) return v.map(toJson);
  if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toJson(x)]));
  return v;
}

/**
 * Checks the elements against the credential query and returns exactly the requested ones. ISO 18013-5 lets a
 * holder answer `age_over_NN` with the nearest statement it holds (`age_over_MM` true with MM >= NN, or false
 * with MM <= NN); such an answer is accepted as the value of `age_over_NN`.
 */
function answerQuery(
  credentialQuery: DcqlCredentialQuery.Mdoc,
  dcqlQuery: DcqlQuery,
  doctype: string,
  namespaces: Record<string, Record<string, unknown>>,
): Json {
  const ownNamespace = findMdocDocType(doctype)?.namespace;
  const elementValue = ([ns, el]: [string, string]): unknown =>
    namespaces[ns]?.[el] ?? nearestAgeOver(el, namespaces[ns] ?? {});
  const claimQueries = credentialQuery.claims ?? [];
  // With claim_sets, the first set (in the verifier's order of preference) whose elements are all disclosed is
  // the answer; without, every requested element must be disclosed.
  const byId = new Map(claimQueries.map((c, i) => [c.id ?? String(i), mdocClaimPath(c)]));
  const sets = credentialQuery.claim_sets ?? [[...byId.keys()]];
  const disclosed = (id: string) => {
    const path = byId.get(id);
    return path !== undefined && elementValue(path) !== undefined;
  };
  const chosen = sets.find((set) => set.every(disclosed));
  if (!chosen) {
    const missing = (sets[0] ?? []).filter((id) => !disclosed(id)).map((id) => byId.get(id)?.join('/'));
    return fail('claims_missing', `The requested element ${missing.join(', ')} was not disclosed.`);
  }
  const answered: Record<string, Record<string, unknown>> = structuredClone(namespaces);
  const answer: Json = {};
  for (const id of chosen) {
    const [ns, el] = byId.get(id) as [string, string];
    const value = elementValue([ns, el]);
    answered[ns] = { ...(answered[ns] ?? {}), [el]: value };
    answer[ns === ownNamespace ? el : `${ns}.${el}`] = value;
  }
  let satisfied = false;
  try {
    const credential: DcqlMdocCredential = {
      credential_format: MDOC_FORMAT,
      doctype,
      namespaces: answered,
      // Holder binding is enforced by policy (a valid device signature is required), so the presentation claims it.
      cryptographic_holder_binding: true,
    };
    const result = DcqlPresentationResult.fromDcqlPresentation(
      { [credentialQuery.id]: [credential] },
      { dcqlQuery },
    );
    satisfied = result.credential_matches[credentialQuery.id]?.success === true;
  } catch (e) {
    fail('claims_missing', 'The presentation does not satisfy the query.', e);
  }
  if (!satisfied) fail('claims_missing', 'The presentation does not satisfy the query.');
  return answer;
}

/** The ISO 18013-5 answer to `age_over_NN` from the age statements held (undefined: none decides it). */
export function nearestAgeOver(element: string, elements: Record<string, unknown>): boolean | undefined {
  const asked = /^age_over_(\d{2})$/.exec(element);
  if (!asked) return undefined;
  const nn = Number(asked[1]);
  const held = Object.entries(elements)
    .map(([k, v]) => ({ m: /^age_over_(\d{2})$/.exec(k), v }))
    .filter((x): x is { m: RegExpExecArray; v: boolean } => x.m !== null && typeof x.v === 'boolean')
    .map(({ m, v }) => ({ mm: Number(m[1]), v }));
  if (held.some(({ mm, v }) => v && mm >= nn)) return true;
  if (held.some(({ mm, v }) => !v && mm <= nn)) return false;
  return undefined;
}

/** `[namespace, element]` of an mdoc claim query (DCQL `path`, or the older `namespace`/`claim_name` form). */
export function mdocClaimPath(c: NonNullable<DcqlCredentialQuery.Mdoc['claims']>[number]): [string, string] {
  return 'path' in c ? [String(c.path[0]), String(c.path[1])] : [c.namespace, c.claim_name];
}
