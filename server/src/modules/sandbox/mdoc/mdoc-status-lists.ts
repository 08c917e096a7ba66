// Owns the revocation data of the sandbox mdoc issuer: which status mechanism each persona document names in
// its MSO (the EU PID and the age-verification attestation: a Token Status List entry, draft-ietf-oauth-status-list
// in CWT form; the mDL: an ISO/IEC 18013-5 identifier list entry), the lists' contents (from the personas'
// status), and their signed form: a tagged COSE_Sign1 (ES256, x5chain = the status signer certificate issued by
// the sandbox IACA) over the CWT claims sub, iat, exp, ttl and status_list {bits, lst} (65533) or
// identifier_list {identifiers} (65530). See docs/adr/0033-mdoc-status.md.
import { createHash } from 'node:crypto';
import {
  CoseKey,
  cborEncode,
  DataItem,
  Header,
  IssuerAuth,
  IssuerSigned,
  ProtectedHeaders,
  Sign1,
  SignatureAlgorithm,
  UnprotectedHeaders,
} from '@owf/mdoc';
import type { BitsPerStatus } from '@sd-jwt/jwt-status-list';
import { base64url } from 'jose';
import { mdocContext } from '../../verification/mdoc/mdoc-context';
import { MDOC_AV, MDOC_MDL, MDOC_PID } from '../../verification/mdoc/mdoc-query';
import { CWT_CLAIM, STATUS_LIST_CWT_TYPE } from '../../verification/mdoc/mdoc-status';
import type { Persona } from '../personas';
import type { StatusListService } from '../status-list.service';

/** The sandbox mdoc Token Status List (2 bits: valid, revoked, suspended) and identifier list. */
export const SANDBOX_MDOC_STATUS_LIST_ID = 'stl_sandbox_mdoc_1';
export const SANDBOX_MDOC_IDENTIFIER_LIST_ID = 'idl_sandbox_mdoc_1';
const STATUS_BITS: BitsPerStatus = 2;
const STATUS_SIZE = 1024;
/** Lifetime of a signed list, and the caching hint (ttl) given to verifiers, in seconds. */
const LIST_LIFETIME_S = 3600;
const LIST_TTL_S = 300;
/** Media type served for the identifier list (a CWT; the Token Status List has its own, statuslist+cwt). */
export const IDENTIFIER_LIST_TYPE = 'application/cwt';

/** A signer: its private JWK and its certificate (DER). */
export interface ListSigner {
  privateJwk: JsonWebKey;
  certificate: Uint8Array;
}

const POSITION: Record<string, number> = {
  [MDOC_PID.doctype]: 0,
  [MDOC_MDL.doctype]: 1,
  [MDOC_AV.doctype]: 2,
};

/** The persona document's entry in the sandbox mdoc status list (fixed: kept when documents are re-issued). */
export const mdocStatusIndexOf = (persona: Persona, doctype: string): number =>
  persona.statusIndex * 4 + (POSITION[doctype] ?? 3);

/** The persona document's identifier in the identifier list (16 bytes, fixed per persona and docType). */
export const mdocIdentifierOf = (persona: Persona, doctype: string): Uint8Array =>
  new Uint8Array(
    createHash('sha256').update(`sandbox-mdoc|${persona.id}|${doctype}`).digest().subarray(0, 16),
  );

/** Which mechanism a document of this docType names: ISO mDLs the identifier list, the EU documents the TSL. */
export const usesIdentifierList = (doctype: string): boolean => doctype === MDOC_MDL.doctype;

export const mdocStatusListUri = (baseUrl: string, id = SANDBOX_MDOC_STATUS_LIST_ID): string =>
  `${baseUrl}/sandbox/mdoc-status-lists/${id}`;
export const mdocIdentifierListUri = (baseUrl: string, id = SANDBOX_MDOC_IDENTIFIER_LIST_ID): string =>
  `${baseUrl}/sandbox/mdoc-identifier-lists/${id}`;

/** The MSO `status` of a persona document (`uri` overrides the list's URI: a test lever). */
export function msoStatusOf(
  persona: Persona,
  doctype: string,
  baseUrl: string,
  uri?: string,
): Map<string, unknown> {
  if (usesIdentifierList(doctype)) {
    const ref = new Map<string, unknown>([
      ['id', mdocIdentifierOf(persona, doctype)],
      ['uri', uri ?? mdocIdentifierListUri(baseUrl)],
    ]);
    return new Map([['identifier_list', ref]]);
  }
  const ref = new Map<string, unknown>([
    ['idx', mdocStatusIndexOf(persona, doctype)],
    ['uri', uri ?? mdocStatusListUri(baseUrl)],
  ]);
  return new Map([['status_list', ref]]);
}

/** The status URI an issued document's MSO names (undefined: none). */
export function msoStatusUriOf(credential: string): string | undefined {
  const mso = IssuerSigned.fromEncodedForOid4Vci(credential).issuerAuth.mobileSecurityObject;
  const status = (mso.decodedStructure as unknown as { get(k: string): unknown }).get('status');
  if (!(status instanceof Map)) return undefined;
  const ref = (status.get('status_list') ?? status.get('identifier_list')) as
    | Map<string, unknown>
    | undefined;
  const uri = ref?.get('uri');
  return typeof uri === 'string' ? uri : undefined;
}

/**
 * `@owf/mdoc` 0.6.0 cannot put `status` into an MSO, so the issued document's MSO is rebuilt with it: the
 * library's own MSO structure plus `status`, CBOR-encoded with the library's encoder, tag-24 wrapped and signed
 * again as the IssuerAuth COSE_Sign1 by the same document signer with the same headers.
 */
export async function withMsoStatus(
  issued: IssuerSigned,
  status: Map<string, unknown>,
  signingKey: CoseKey,
): Promise<IssuerSigned> {
  const auth = issued.issuerAuth;
  const mso = auth.mobileSecurityObject.encodedStructure as unknown as Map<string, unknown>;
  mso.set('status', status);
  const issuerAuth = await IssuerAuth.create(
    {
      payload: cborEncode(DataItem.fromData(mso)),
      protectedHeaders: auth.protectedHeaders,
      unprotectedHeaders: auth.unprotectedHeaders,
      signingKey,
      algorithm: SignatureAlgorithm.ES256,
    },
    mdocContext,
  );
  return IssuerSigned.create({ issuerNamespaces: issued.issuerNamespaces, issuerAuth });
}

/** Creates the lists if missing and sets every persona document's status (idempotent; on every start). */
export async function ensureMdocStatusLists(
  lists: StatusListService,
  issuer: string,
  personas: readonly Persona[],
  documentsOf: (persona: string) => readonly { doctype: string }[],
): Promise<void> {
  await lists.ensure(SANDBOX_MDOC_STATUS_LIST_ID, issuer, STATUS_BITS, STATUS_SIZE);
  for (const persona of personas) {
    if (persona.status === 0) continue;
    for (const { doctype } of documentsOf(persona.id)) {
      if (usesIdentifierList(doctype)) continue;
      await lists.setStatus(SANDBOX_MDOC_STATUS_LIST_ID, mdocStatusIndexOf(persona, doctype), persona.status);
    }
  }
}

async function signCwt(
  claims: Map<number, unknown>,
  signer: ListSigner,
  typ: string | undefined,
): Promise<Uint8Array> {
  const protectedHeaders = new Map<number, unknown>([[Header.Algorithm, SignatureAlgorithm.ES256]]);
  if (typ) protectedHeaders.set(16, typ);
  const sign1 = await Sign1.create(
    {
      payload: cborEncode(claims),
      protectedHeaders: ProtectedHeaders.create({ protectedHeaders } as never),
      unprotectedHeaders: UnprotectedHeaders.create({
        unprotectedHeaders: new Map([[Header.X5Chain, signer.certificate]]),
      }),
      signingKey: CoseKey.fromJwk({ ...signer.privateJwk, alg: 'ES256' } as never),
      algorithm: SignatureAlgorithm.ES256,
    },
    mdocContext,
  );
  // COSE_Sign1 tagged (18), as a CWT is sent on its own.
  return new Uint8Array([0xd2, ...sign1.encode()]);
}

const baseClaims = (uri: string, now: Date): Map<number, unknown> => {
  const iat = Math.floor(now.getTime() / 1000);
  return new Map<number, unknown>([
    [CWT_CLAIM.sub, uri],
    [CWT_CLAIM.iat, iat],
    [CWT_CLAIM.exp, iat + LIST_LIFETIME_S],
    [CWT_CLAIM.ttl, LIST_TTL_S],
  ]);
};

/** The Token Status List in CWT form (application/statuslist+cwt) of the current statuses. */
export async function statusListCwt(input: {
  lists: StatusListService;
  id: string;
  uri: string;
  signer: ListSigner;
  now: Date;
}): Promise<Uint8Array> {
  const { list, bits } = await input.lists.current(input.id);
  const claims = baseClaims(input.uri, input.now);
  claims.set(
    CWT_CLAIM.statusList,
    new Map<string, unknown>([
      ['bits', bits],
      ['lst', base64url.decode(list.compressStatusList())],
    ]),
  );
  return signCwt(claims, input.signer, STATUS_LIST_CWT_TYPE);
}

/** The ISO 18013-5 identifier list (CWT claim 65530): the identifiers of the revoked personas' documents. */
export async function identifierListCwt(input: {
  uri: string;
  personas: readonly Persona[];
  documentsOf: (persona: string) => readonly { doctype: string }[];
  signer: ListSigner;
  now: Date;
}): Promise<Uint8Array> {
  const identifiers = new Map<Uint8Array, Map<string, unknown>>();
  for (const persona of input.personas) {
    if (persona.status !== 1) continue;
    for (const { doctype } of input.documentsOf(persona.id)) {
      if (usesIdentifierList(doctype)) identifiers.set(mdocIdentifierOf(persona, doctype), new Map());
    }
  }
  const claims = baseClaims(input.uri, input.now);
  claims.set(CWT_CLAIM.identifierList, new Map<string, unknown>([['identifiers', identifiers]]));
  return signCwt(claims, input.signer, undefined);
}
