// Owns verification of an ISO mdoc (`mso_mdoc`) answer to one of our OpenID4VP requests: the vp_token entry
// (base64url DeviceResponse), issuer trust (document signer certificate -> IACA trusted for the docType in this
// environment), the issuer signature over the MSO, the value digests of every disclosed element, the MSO
// validity, the docType against the query, the requested elements, and the device signature over the
// SessionTranscript of this request (OpenID4VP DC API handover: origin + nonce [+ encryption key thumbprint], or
// the redirect handover), and for sign/attestation the transaction data hashes in the device-signed namespaces
// (which that device signature covers and the MSO's KeyAuthorizations must authorize). @owf/mdoc does the
// CBOR/COSE work and reports each check; this class decides the order and maps every failure to a stable code
// of the closed list. The MSO's status reference, if any, is checked last (mdoc-status.ts, ADR 0033); an MSO
// without one records status 'not_applicable'.

import {
  DeviceResponse,
  type Document,
  type MobileSecurityObject,
  type SessionTranscript,
  type VerificationAssessment,
  Verifier,
} from '@owf/mdoc';
import type { DcqlCredentialQuery, DcqlQuery } from 'dcql';
import type { JWK } from 'jose';
import { AppError, type ErrorCode } from '../../../common/errors';
import type { Environment } from '../../../config/config';
import { answeredCredentialQuery, DOCUMENT_STATUS, StoredDcqlQueries } from '../dcql';
import { dcqlPresentations } from '../vp-token';
import {
  ANNEX_C_PROTOCOL,
  type AnnexCOpenedResponse,
  type AnnexCStoredRequest,
  isAnnexCRequest,
} from './annex-c';
import { answerQuery, disclosedNamespaces } from './mdoc-answer';
import { CertificateCache, coseKeyToEcJwk, createMdocContext, verifyIacaChain } from './mdoc-context';
import {
  checkTransactionData,
  decodeB64u,
  mdocHolderSignature,
  requireAuthorized,
  requireDeviceSigned,
} from './mdoc-device-auth';
import { ecThumbprint, type MdocHandover, mdocSessionTranscript } from './mdoc-handover';

// Re-exported for presentation-verifier.ts (its import of these predates the split).
export { answersMdocQuery, mdocHandoverOf } from './mdoc-handover';

import { type RouteScope, routeList } from '../trust';
import { requireTrustedAuthority } from '../trusted-authorities';
import { MDOC_FORMAT } from './mdoc-query';
import {
  type MdocStatusChecked,
  MdocStatusChecker,
  mdocStatusReference,
  type StatusListCwtFetcher,
} from './mdoc-status';
import type { MdocTrustStore } from './mdoc-trust';

/** What document_status (and the audit record's status) say for an mdoc whose MSO names no status list. */
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
  /** The lists checked (valid), or not_applicable when the MSO names none. */
  statusChecked: MdocStatusChecked;
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

export interface MdocVerifyInput extends MdocHandover {
  /** The exact request sent to the wallet. */
  request: Record<string, unknown>;
  expectedNonce: string;
  environment: Environment;
  /** The credential routes whose IACAs may validate the document (ADR 0036); undefined: any route. */
  routes?: RouteScope;
  response: unknown;
  now: Date;
}

export interface MdocPresentationVerifierDeps {
  trust: MdocTrustStore;
  /** GET of an mdoc status list (COSE_Sign1 CWT); absent: an mdoc with a status reference is status_check_failed. */
  fetchStatusList?: StatusListCwtFetcher;
  /** Clock skew tolerated for the MSO validity, in seconds. */
  skewSeconds?: number;
}

const fail = (code: ErrorCode, detail: string, cause?: unknown): never => {
  throw new AppError(code, detail, { cause });
};

// The callbacks of a verification are made by these (not as named closures in it): the service runs under tsx,
// whose keepNames names every named closure when it is created (ADR 0059 amendment 5).
/** The first failed assessment of `category` whose check names one of `words` (any, without words). */
const failedIn = (
  failed: VerificationAssessment[],
  category: VerificationAssessment['category'],
  ...words: string[]
): VerificationAssessment | undefined =>
  failed.find(
    (a) => a.category === category && (words.length === 0 || words.some((w) => a.check.includes(w))),
  );
/** The library's onCheck: keeps the failed assessments. */
const collectFailed =
  (failed: VerificationAssessment[]) =>
  (a: VerificationAssessment): void => {
    if (a.status === 'FAILED') failed.push(a);
  };
/** The query an OpenID4VP answer was matched to, whatever the docType (compared after the issuer checks). */
const answered = (query: DcqlCredentialQuery) => (): DcqlCredentialQuery => query;
/** The query an Annex C answer answers: the one of the document's docType (the DeviceRequest asked for each). */
const queryOfDocType =
  (dcqlQuery: DcqlQuery) =>
  (docType: string): DcqlCredentialQuery => {
    const q = dcqlQuery.credentials.find(
      (c) => c.format === MDOC_FORMAT && c.meta?.doctype_value === docType,
    );
    return q ?? fail('credential_type_invalid', 'The document type (docType) was not requested.');
  };

export class MdocPresentationVerifier {
  private readonly skew: number;
  /** Parsed certificates of this instance (see CertificateCache), and the library context that uses them. */
  private readonly certs = new CertificateCache();
  /** Our stored requests' DCQL queries, parsed once per distinct text. */
  private readonly dcqlQueries = new StoredDcqlQueries();
  private readonly ctx = createMdocContext(this.certs);
  private readonly status: MdocStatusChecker;

  constructor(private readonly deps: MdocPresentationVerifierDeps) {
    this.skew = deps.skewSeconds ?? 5;
    this.status = new MdocStatusChecker({
      fetch: deps.fetchStatusList,
      certs: this.certs,
      ctx: this.ctx,
      skewSeconds: this.skew,
    });
  }

  async verify(input: MdocVerifyInput): Promise<MdocVerifiedPresentation> {
    const checks: string[] = [];
    // Our own request: a failure here is a bug on our side, not the wallet's, so it is a plain Error.
    if (input.request.nonce !== input.expectedNonce)
      throw new Error('request nonce differs from expected nonce');
    const dcqlQuery = this.dcqlQueries.get(input.request.dcql_query);
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
      queryFor: answered(query),
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
    /** openAnnexCResponse's answer: the DeviceResponse bytes and the transcript hash of its HPKE info. */
    opened: AnnexCOpenedResponse;
    environment: Environment;
    routes?: RouteScope;
    now: Date;
  }): Promise<MdocVerifiedPresentation> {
    const stored = input.request as unknown as AnnexCStoredRequest;
    if (!isAnnexCRequest(input.request) || stored.nonce !== input.expectedNonce)
      throw new Error('not our Annex C request, or its nonce differs');
    const dcqlQuery = this.dcqlQueries.get(stored.dcql_query);
    const bytes = input.opened.deviceResponse;
    return this.verifyDeviceResponse({
      bytes,
      presented: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64url'),
      request: input.request,
      dcqlQuery,
      queryFor: queryOfDocType(dcqlQuery),
      // the stored request's transcript; its hash was computed for the HPKE info of this same request's open
      transcript: input.opened.transcriptFor(stored),
      environment: input.environment,
      routes: input.routes,
      now: input.now,
      checks: ['annex_c_decrypted'],
      protocol: ANNEX_C_PROTOCOL,
    });
  }

  private async verifyDeviceResponse(input: {
    bytes: Uint8Array;
    presented: string;
    request: Record<string, unknown>;
    dcqlQuery: DcqlQuery;
    queryFor: (docType: string) => DcqlCredentialQuery;
    transcript: SessionTranscript;
    environment: Environment;
    routes?: RouteScope;
    now: Date;
    checks: string[];
    /** Set on the result (last, as the Annex C answer's copy of it was). */
    protocol?: typeof ANNEX_C_PROTOCOL;
  }): Promise<MdocVerifiedPresentation> {
    const { bytes, presented, dcqlQuery, transcript, checks } = input;
    const raw = requireDeviceSigned(bytes);
    let response: DeviceResponse;
    try {
      // DeviceResponse.decode(bytes) is cborDecode(bytes) and then this: the bytes are decoded once.
      response = DeviceResponse.fromEncodedStructure(raw as Map<unknown, unknown>);
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
    // The patched @owf/mdoc decodes the MSO once per payload (its checks read it for every disclosed element).
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
        await verifyIacaChain({ trustedCertificates: routeAnchors, x5chain, now: input.now }, this.certs);
        anchors = routeAnchors;
        break;
      } catch (e) {
        lastError = e;
      }
    }
    if (!anchors) {
      const routes = await routeList(input.routes);
      const tried = routes === undefined ? 'any route' : `route ${routes.join(', ') || '(none)'}`;
      return fail(
        'issuer_untrusted',
        `The mdoc issuer is not trusted for this document type and environment on ${tried}.`,
        lastError,
      );
    }
    checks.push('issuer_trusted');

    // 3. The library's checks (issuer signature, MSO validity, value digests, device signature), collected.
    // Its certificate path validation is ours (the same verifyIacaChain through this context), and it has just
    // passed on these anchors at this `now`: the library is not asked to make it a second time.
    const failed: VerificationAssessment[] = [];
    try {
      await Verifier.verifyDeviceResponse(
        {
          deviceResponse: response,
          sessionTranscript: transcript,
          trustedCertificates: anchors,
          disableCertificateChainValidation: true,
          now: input.now,
          skewSeconds: this.skew,
          onCheck: collectFailed(failed),
        },
        this.ctx,
      );
    } catch (e) {
      return fail('presentation_malformed', 'The mdoc presentation cannot be verified.', e);
    }
    const failedWhere = failedIn.bind(undefined, failed);

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
    // Read (not yet fetched) here: an unusable reference is refused before any more work.
    const statusRef = mdocStatusReference(mso);
    checks.push('credential_validity');

    // 6. Every disclosed element matches its digest in the MSO (a changed value is a tampered disclosure).
    if (failedWhere('DATA_INTEGRITY'))
      fail('disclosure_invalid', 'A disclosed element does not match the MSO digests.');
    const namespaces = disclosedNamespaces(doc);
    checks.push('value_digests');

    // 7. The disclosed elements answer the query; the issuer chain is inside its trusted_authorities (ADR 0050).
    const authority = requireTrustedAuthority(query as DcqlCredentialQuery.Mdoc, x5chain);
    const answer = answerQuery(
      query as DcqlCredentialQuery.Mdoc,
      dcqlQuery,
      mso.docType,
      namespaces,
      authority,
    );
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

    // 10. Status, last (the only network step): the lists the MSO names, under the document's own trust.
    const statusChecked: MdocStatusChecked = statusRef
      ? await this.status.check(statusRef, { anchors, now: input.now })
      : {
          status: MDOC_STATUS_NOT_APPLICABLE,
          reason: 'The mdoc has no status reference; its validity period (validUntil) bounds it.',
        };
    checks.push(statusChecked.status === 'valid' ? 'status_list' : 'status_not_applicable');
    const documentSigner = this.certs.cert(doc.issuerSigned.issuerAuth.certificate);
    const holderJwk = coseKeyToEcJwk(mso.deviceKeyInfo.deviceKey) as JWK;
    const verified: MdocVerifiedPresentation = {
      format: MDOC_FORMAT,
      issuer: documentSigner.subject,
      vct: mso.docType,
      claims: { ...answer, [DOCUMENT_STATUS]: statusChecked.status },
      holderKeyThumbprint: await ecThumbprint(holderJwk),
      statusChecked,
      holderJwk,
      verifiedAt: input.now,
      presentation: presented,
      keyBindingJwt: '',
      // @owf/mdoc's device-auth check set the signature's detached payload to the DeviceAuthenticationBytes it
      // verified with this transcript: reused instead of encoded again (ADR 0045 amendment)
      deviceSignature: mdocHolderSignature(
        doc,
        transcript,
        doc.deviceSigned.deviceAuth.deviceSignature?.detachedPayload,
      ),
      transactionData,
      checks,
      issuerChain: { documentSigner: documentSigner.subject, iaca: documentSigner.issuer },
    };
    if (input.protocol) verified.protocol = input.protocol;
    return verified;
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
