// Owns the revocation status of an mdoc: the MSO's `status` reference (draft-ietf-oauth-status-list: `status_list`
// {idx, uri}; ISO/IEC 18013-5 second edition: `identifier_list` {id, uri, certificate?}), fetching the list (a
// COSE_Sign1 CWT), its signature under the same trust as the document (the list signer's x5chain must chain to an
// IACA trusted for the document's docType in this environment), its claims (sub = the uri, exp, ttl for
// caching, status_list {bits, lst} or identifier_list {identifiers}) and the document's entry. Every failure to
// fetch, verify or read a list is `status_check_failed`, never "valid". See docs/adr/0033-mdoc-status.md.
import { createHash } from 'node:crypto';
import { cborDecode, type MdocContext, type MobileSecurityObject, Sign1 } from '@owf/mdoc';
import { type BitsPerStatus, StatusList } from '@sd-jwt/jwt-status-list';
import { base64url } from 'jose';
import { AppError, type ErrorCode } from '../../../common/errors';
import { type CertificateCache, verifyIacaChain } from './mdoc-context';

/** CWT claim keys of a status list token (RFC 8392; draft-ietf-oauth-status-list; ISO 18013-5 identifier list). */
export const CWT_CLAIM = {
  sub: 2,
  exp: 4,
  iat: 6,
  identifierList: 65530,
  statusList: 65533,
  ttl: 65534,
} as const;
/** COSE header `typ` (16) and the media type of a Token Status List in CWT form. */
export const STATUS_LIST_CWT_TYPE = 'application/statuslist+cwt';
const COSE_TYP = 16;

export interface MdocStatusReference {
  statusList?: { idx: number; uri: string };
  identifierList?: { id: Uint8Array; uri: string };
}

/** One list consulted for a valid document (evidence for the audit record). */
export interface MdocStatusListChecked {
  mechanism: 'status_list' | 'identifier_list';
  uri: string;
  idx?: number;
}

export type MdocStatusChecked =
  | { status: 'valid'; lists: MdocStatusListChecked[] }
  | { status: 'not_applicable'; reason: string };

/** GET of a status list URI; returns the COSE_Sign1 bytes (status-list-fetch.ts httpStatusListCwtFetcher). */
export type StatusListCwtFetcher = (uri: string) => Promise<Uint8Array>;

const fail = (code: ErrorCode, detail: string, cause?: unknown): never => {
  throw new AppError(code, detail, { cause });
};
const failStatus = (detail: string, cause?: unknown): never => fail('status_check_failed', detail, cause);

/**
 * The MSO's status reference, or undefined when the MSO has none. A `status` that is there but unusable (no
 * known mechanism, a negative index, an empty identifier) is status_check_failed: the issuer asked for a check
 * we cannot make.
 */
export function mdocStatusReference(mso: MobileSecurityObject): MdocStatusReference | undefined {
  const structure = mso.decodedStructure as unknown as { get(key: string): unknown };
  const status = structure.get('status');
  if (status === undefined) return undefined;
  if (!(status instanceof Map)) return failStatus('The MSO status is not a map.');
  const ref: MdocStatusReference = {};
  const sl = status.get('status_list');
  if (sl !== undefined) {
    const idx = sl instanceof Map ? sl.get('idx') : undefined;
    const uri = sl instanceof Map ? sl.get('uri') : undefined;
    if (typeof uri !== 'string' || typeof idx !== 'number' || !Number.isInteger(idx) || idx < 0) {
      failStatus('The MSO status_list has no usable idx and uri.');
    }
    ref.statusList = { idx: idx as number, uri: uri as string };
  }
  const il = status.get('identifier_list');
  if (il !== undefined) {
    const id = il instanceof Map ? il.get('id') : undefined;
    const uri = il instanceof Map ? il.get('uri') : undefined;
    if (typeof uri !== 'string' || !(id instanceof Uint8Array) || id.length === 0) {
      failStatus('The MSO identifier_list has no usable id and uri.');
    }
    ref.identifierList = { id: id as Uint8Array, uri: uri as string };
  }
  if (!ref.statusList && !ref.identifierList) failStatus('The MSO status names no known status mechanism.');
  return ref;
}

/** A list token whose signature verified: its claims, read once. */
interface VerifiedToken {
  sign1: Sign1;
  claims: Map<number, unknown>;
  statusList?: StatusList;
  revokedIds?: Set<string>;
}

export class MdocStatusChecker {
  /**
   * Tokens whose COSE signature verified, by SHA-256 of the token bytes (the signer's certificate is inside the
   * token, so signature and decoding are pure functions of the bytes): a cached or unchanged list skips the
   * ECDSA verify and the inflate. The trust decision (chain to this docType's IACAs at `now`), sub, exp and the
   * entry are checked on every use. Bounded; per verifier instance.
   */
  private readonly verified = new Map<string, VerifiedToken>();
  /**
   * The same, by the array the fetcher returned: a caching fetcher hands out one array per list for its ttl, so
   * the list's SHA-256 is computed once per fetch instead of once per verification. Fetched arrays are not
   * written to.
   */
  private readonly verifiedArrays = {
    status_list: new WeakMap<Uint8Array, VerifiedToken>(),
    identifier_list: new WeakMap<Uint8Array, VerifiedToken>(),
  };

  constructor(
    private readonly deps: {
      fetch?: StatusListCwtFetcher;
      certs: CertificateCache;
      ctx: MdocContext;
      skewSeconds: number;
    },
  ) {}

  /** Checks every mechanism the MSO names; throws credential_revoked / credential_suspended / status_check_failed. */
  async check(
    ref: MdocStatusReference,
    trust: { anchors: Uint8Array[]; now: Date },
  ): Promise<MdocStatusChecked> {
    const lists: MdocStatusListChecked[] = [];
    if (ref.statusList) {
      const { idx, uri } = ref.statusList;
      const token = await this.listToken(uri, trust, 'status_list');
      let status: number;
      try {
        status = (token.statusList as StatusList).getStatus(idx);
      } catch (e) {
        return failStatus('The status index is outside the status list.', e);
      }
      if (status === 1) fail('credential_revoked', 'The credential has been revoked.');
      if (status === 2) fail('credential_suspended', 'The credential is suspended.');
      if (status !== 0) failStatus('The credential status is not recognised.');
      lists.push({ mechanism: 'status_list', uri, idx });
    }
    if (ref.identifierList) {
      const { id, uri } = ref.identifierList;
      const token = await this.listToken(uri, trust, 'identifier_list');
      // ISO 18013-5 identifier list: an MSO whose identifier is listed is revoked (there is no suspension).
      if (token.revokedIds?.has(Buffer.from(id).toString('hex'))) {
        fail('credential_revoked', 'The credential has been revoked.');
      }
      lists.push({ mechanism: 'identifier_list', uri });
    }
    return { status: 'valid', lists };
  }

  private async listToken(
    uri: string,
    trust: { anchors: Uint8Array[]; now: Date },
    kind: 'status_list' | 'identifier_list',
  ): Promise<VerifiedToken> {
    if (!this.deps.fetch) return failStatus('This verifier cannot fetch mdoc status lists.');
    let bytes: Uint8Array;
    try {
      bytes = await this.deps.fetch(uri);
    } catch (e) {
      return failStatus('The status list could not be fetched.', e);
    }
    const token = await this.verifiedToken(bytes, kind);
    // The same trust as the document: the list signer chains to an IACA trusted for this docType, here, now.
    try {
      await verifyIacaChain(
        { trustedCertificates: trust.anchors, x5chain: token.sign1.certificateChain, now: trust.now },
        this.deps.certs,
      );
    } catch (e) {
      return failStatus("The status list is not signed under the trust of the document's issuer.", e);
    }
    const now = Math.floor(trust.now.getTime() / 1000);
    if (token.claims.get(CWT_CLAIM.sub) !== uri)
      failStatus('The status list token is for another URI (sub).');
    const exp = token.claims.get(CWT_CLAIM.exp);
    if (typeof exp === 'number' && exp + this.deps.skewSeconds <= now) {
      failStatus('The status list token has expired.');
    }
    return token;
  }

  private async verifiedToken(
    bytes: Uint8Array,
    kind: 'status_list' | 'identifier_list',
  ): Promise<VerifiedToken> {
    const known = this.verifiedArrays[kind].get(bytes);
    if (known) return known;
    const memoKey = `${kind} ${createHash('sha256').update(bytes).digest('base64url')}`;
    const hit = this.verified.get(memoKey);
    if (hit) {
      this.verifiedArrays[kind].set(bytes, hit);
      return hit;
    }
    let sign1: Sign1;
    try {
      sign1 = Sign1.decode(bytes);
    } catch (e) {
      return failStatus('The status list is not a COSE_Sign1.', e);
    }
    if (kind === 'status_list' && sign1.protectedHeaders.headers?.get(COSE_TYP) !== STATUS_LIST_CWT_TYPE) {
      failStatus('The status list token typ is wrong.');
    }
    if (sign1.certificateChain.length === 0) failStatus('The status list carries no certificate (x5chain).');
    let signed = false;
    try {
      signed = await sign1.verifySignature({}, this.deps.ctx);
    } catch (e) {
      return failStatus('The status list signature cannot be verified.', e);
    }
    if (!signed) failStatus('The status list signature is invalid.');
    let claims: unknown;
    try {
      claims = cborDecode(sign1.payload ?? new Uint8Array());
    } catch (e) {
      return failStatus('The status list claims cannot be decoded.', e);
    }
    if (!(claims instanceof Map)) return failStatus('The status list claims are not a CWT claims map.');
    const token: VerifiedToken = { sign1, claims: claims as Map<number, unknown> };
    if (kind === 'status_list') token.statusList = readStatusList(claims.get(CWT_CLAIM.statusList));
    else token.revokedIds = readIdentifierList(claims.get(CWT_CLAIM.identifierList));
    if (this.verified.size >= 256) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(memoKey, token);
    this.verifiedArrays[kind].set(bytes, token);
    return token;
  }
}

/** status_list = {bits: 1|2|4|8, lst: bstr (ZLIB-compressed)}: decompressed with @sd-jwt/jwt-status-list. */
function readStatusList(value: unknown): StatusList {
  const bits = value instanceof Map ? value.get('bits') : undefined;
  const lst = value instanceof Map ? value.get('lst') : undefined;
  if (![1, 2, 4, 8].includes(bits as number) || !(lst instanceof Uint8Array)) {
    return failStatus('The status list token has no status_list {bits, lst}.');
  }
  try {
    return StatusList.decompressStatusList(base64url.encode(lst), bits as BitsPerStatus);
  } catch (e) {
    return failStatus('The status list cannot be decompressed.', e);
  }
}

/** identifier_list = {identifiers: {* bstr => IdentifierInfo}, ? aggregation_uri}: the listed ids, as hex. */
function readIdentifierList(value: unknown): Set<string> {
  const identifiers = value instanceof Map ? value.get('identifiers') : undefined;
  if (!(identifiers instanceof Map)) return failStatus('The identifier list token has no identifiers.');
  const ids = new Set<string>();
  for (const key of identifiers.keys()) {
    if (!(key instanceof Uint8Array))
      failStatus('An identifier of the identifier list is not a byte string.');
    ids.add(Buffer.from(key as Uint8Array).toString('hex'));
  }
  return ids;
}
