// Owns the ISO/IEC 18013-7 Annex C exchange over the Digital Credentials API (protocol `org-iso-mdoc`, what
// Safari and Apple Wallet speak): the request the hosted page hands to the browser (a CBOR DeviceRequest for the
// step's mdoc doctypes and elements, and EncryptionInfo with a fresh nonce and a one-time P-256 recipient key),
// the `dcapi` handover SessionTranscript bound to the page's origin and that EncryptionInfo, and opening the
// wallet's HPKE-encrypted answer (RFC 9180 base mode, DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-128-GCM,
// info = the SessionTranscript CBOR, empty aad). The DeviceResponse inside is verified by MdocPresentationVerifier
// exactly like an OpenID4VP mdoc answer, only over this transcript (see docs/adr/0032-annex-c-org-iso-mdoc.md).
//
// Shapes (Annex C; cross-checked with public implementations, the ISO text itself was not read):
//   request data   = { deviceRequest: b64u(CBOR DeviceRequest), encryptionInfo: b64u(CBOR EncryptionInfo) }
//   EncryptionInfo = ["dcapi", { "nonce": bstr, "recipientPublicKey": COSE_Key }]
//   SessionTranscript = [null, null, ["dcapi", SHA-256(CBOR [encryptionInfo b64u string, origin])]]
//   response data  = { response: b64u(CBOR ["dcapi", { "enc": bstr, "cipherText": bstr }]) }

import { hash } from 'node:crypto';
import { Aes128Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';
import {
  cborDecode,
  cborEncode,
  DeviceRequest,
  DocRequest,
  ItemsRequest,
  QrHandover,
  SessionTranscript,
} from '@owf/mdoc';
import type { DcqlCredentialQuery, DcqlQuery } from 'dcql';
import { base64url, type JWK } from 'jose';
import { AppError } from '../../../common/errors';
import { hpkeOpenBase, hpkeRecipientKey } from './annex-c-hpke';
import { type ReaderSigner, signedDeviceRequest } from './annex-c-reader-auth';
import { MDOC_FORMAT } from './mdoc-query';

/** The DC API protocol identifier of Annex C. */
export const ANNEX_C_PROTOCOL = 'org-iso-mdoc';
/** wallet_request.response_mode of an Annex C request (the answer is HPKE-encrypted to the recipient key). */
export const ANNEX_C_RESPONSE_MODE = 'org-iso-mdoc';

// The wallet side's HPKE suite (sealAnnexCResponse, the sandbox wallet). It holds no keys or per-message state:
// built once (ADR 0045). The service opens answers with node:crypto (annex-c-hpke.ts).
let theSuite: CipherSuite | undefined;
const suite = (): CipherSuite => {
  theSuite ??= new CipherSuite({
    kem: new DhkemP256HkdfSha256(),
    kdf: new HkdfSha256(),
    aead: new Aes128Gcm(),
  });
  return theSuite;
};

type Json = Record<string, unknown>;

/** The fields of our stored Annex C request (wallet_request.request): what the answer is verified against. */
export interface AnnexCStoredRequest {
  protocol: typeof ANNEX_C_PROTOCOL;
  /** base64url of the EncryptionInfo nonce (32 random bytes); also wallet_request.nonce. */
  nonce: string;
  /** The page origin the transcript binds (HOSTED_URL's origin). */
  origin: string;
  /** The mdoc credential queries of the step (DCQL, only mso_mdoc): which docType answers which query. */
  dcql_query: DcqlQuery;
  device_request: string;
  encryption_info: string;
}

/**
 * An opened Annex C answer: the DeviceResponse bytes HPKE-decrypted with the request's recipient key. Only
 * openAnnexCResponse makes one, so the verifier knows the bytes came out of our own decryption. It keeps the
 * dcapi handover hash the open computed for its HPKE info, with the EncryptionInfo and origin it was computed
 * from: the verification's SessionTranscript is the same one, so the hash is not computed twice (ADR 0059
 * amendment 5). transcriptFor gives it only for those same strings, and computes it afresh otherwise.
 */
export class AnnexCOpenedResponse {
  constructor(
    readonly deviceResponse: Uint8Array,
    private readonly opened?: { encryptionInfo: string; origin: string; infoHash: Uint8Array },
  ) {}

  /** The Annex C SessionTranscript of `stored`: [null, null, ["dcapi", dcapiInfoHash]]. */
  transcriptFor(stored: Pick<AnnexCStoredRequest, 'encryption_info' | 'origin'>): SessionTranscript {
    const o = this.opened;
    const hash =
      o && o.encryptionInfo === stored.encryption_info && o.origin === stored.origin
        ? o.infoHash
        : dcapiInfoHash(stored.encryption_info, stored.origin);
    return sessionTranscriptOf(hash);
  }
}

export const isAnnexCRequest = (request: Json): boolean => request.protocol === ANNEX_C_PROTOCOL;

/** A COSE_Key (EC2, P-256) of a public JWK: {1: 2, -1: 1, -2: x, -3: y}. */
function coseKeyOf(jwk: JWK): Map<number, unknown> {
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || !jwk.x || !jwk.y) throw new Error('a P-256 public JWK');
  return new Map<number, unknown>([
    [1, 2],
    [-1, 1],
    [-2, base64url.decode(jwk.x)],
    [-3, base64url.decode(jwk.y)],
  ]);
}

/** Only the mso_mdoc credential queries of a step's DCQL query (credential_sets of the mdoc alternatives). */
function mdocOnly(query: DcqlQuery): DcqlQuery {
  const credentials = query.credentials.filter((c) => c.format === MDOC_FORMAT);
  const ids = new Set(credentials.map((c) => c.id));
  const options = (query.credential_sets ?? [])
    .flatMap((s) => s.options)
    .filter((o) => o.every((id) => ids.has(id)));
  return {
    credentials,
    ...(credentials.length > 1 ? { credential_sets: [{ options, required: true }] } : {}),
  } as DcqlQuery;
}

/** `[namespace, element]` pairs of an mdoc credential query. */
function elementsOf(q: DcqlCredentialQuery.Mdoc): [string, string][] {
  return (q.claims ?? []).map((c) =>
    'path' in c ? [String(c.path[0]), String(c.path[1])] : [c.namespace, c.claim_name],
  );
}

/**
 * The Annex C request for a step: its DeviceRequest asks, per mdoc alternative of the step's DCQL query, for
 * that docType's elements (intent to retain: false); the wallet answers with one of them.
 */
export function buildAnnexCRequest(input: {
  dcqlQuery: DcqlQuery;
  nonce: string;
  origin: string;
  recipientPublicJwk: JWK;
  /** Reader authentication (ADR 0049): readerAuthAll signers and the per-document signer, if any. */
  readerAuth?: { all: readonly ReaderSigner[]; perDocument?: ReaderSigner };
}): {
  stored: AnnexCStoredRequest;
  forPage: { protocol: typeof ANNEX_C_PROTOCOL; request: { deviceRequest: string; encryptionInfo: string } };
} {
  const dcql = mdocOnly(input.dcqlQuery);
  if (dcql.credentials.length === 0) throw new Error('an Annex C request needs an mso_mdoc query');
  const itemsRequests = dcql.credentials.map((c) => {
    const q = c as DcqlCredentialQuery.Mdoc;
    const namespaces = new Map<string, Map<string, boolean>>();
    for (const [ns, el] of elementsOf(q)) {
      namespaces.set(ns, (namespaces.get(ns) ?? new Map()).set(el, false));
    }
    return ItemsRequest.create({ docType: String(q.meta?.doctype_value), namespaces });
  });
  const encryptionInfo = base64url.encode(
    cborEncode([
      'dcapi',
      new Map<string, unknown>([
        ['nonce', base64url.decode(input.nonce)],
        ['recipientPublicKey', coseKeyOf(input.recipientPublicJwk)],
      ]),
    ]),
  );
  const signers = input.readerAuth;
  const deviceRequest = base64url.encode(
    signers && (signers.all.length > 0 || signers.perDocument)
      ? signedDeviceRequest({
          itemsRequests: itemsRequests.map((i) => i.encode()),
          sessionTranscript: annexCSessionTranscript(encryptionInfo, input.origin).encode(),
          all: signers.all,
          perDocument: signers.perDocument,
        })
      : DeviceRequest.create({
          version: '1.0',
          docRequests: itemsRequests.map((itemsRequest) => DocRequest.create({ itemsRequest })),
        }).encode(),
  );
  return {
    stored: {
      protocol: ANNEX_C_PROTOCOL,
      nonce: input.nonce,
      origin: input.origin,
      dcql_query: dcql,
      device_request: deviceRequest,
      encryption_info: encryptionInfo,
    },
    forPage: {
      protocol: ANNEX_C_PROTOCOL,
      request: { deviceRequest, encryptionInfo },
    },
  };
}

// @owf/mdoc 0.6.0 knows the OpenID4VP handovers but not Annex C's `dcapi` one; its Handover base class is not
// exported, so it is reached through a handover it does export. The subclass only encodes (we never decode a
// transcript: it is not transmitted).
const HandoverBase = Object.getPrototypeOf(QrHandover) as typeof QrHandover;
class DcapiHandover extends HandoverBase {
  constructor(private readonly dcapiInfoHash: Uint8Array) {
    super(null);
  }
  // biome-ignore lint/suspicious/noExplicitAny: the base type says `null` (QrHandover's structure); ours is the Annex C array
  override get encodedStructure(): any {
    return ['dcapi', this.dcapiInfoHash];
  }
}

/** SHA-256 of CBOR [encryptionInfo (the base64url string as sent), origin]: the dcapi handover's hash. */
export function dcapiInfoHash(encryptionInfo: string, origin: string): Uint8Array {
  return hash('sha256', cborEncode([encryptionInfo, origin]), 'buffer');
}

/** The Annex C SessionTranscript: [null, null, ["dcapi", dcapiInfoHash]]. */
export function annexCSessionTranscript(encryptionInfo: string, origin: string): SessionTranscript {
  return sessionTranscriptOf(dcapiInfoHash(encryptionInfo, origin));
}

const sessionTranscriptOf = (infoHash: Uint8Array): SessionTranscript =>
  SessionTranscript.fromDecodedStructure({
    deviceEngagement: null,
    eReaderKey: null,
    handover: new DcapiHandover(infoHash),
  });

/**
 * The Annex C SessionTranscript's CBOR, encoded from its array directly: the same bytes as
 * annexCSessionTranscript(...).encode() (the wallet side seals with those, so every Annex C test opening a
 * wallet's answer checks they agree), without building the library's structure through its codecs (about 5 µs instead
 * of about 20 per answer, ADR 0059 second amendment) for an HPKE info that is only hashed.
 */
export function annexCSessionTranscriptBytes(
  encryptionInfo: string,
  origin: string,
  infoHash = dcapiInfoHash(encryptionInfo, origin),
): Uint8Array {
  return cborEncode([null, null, ['dcapi', infoHash]]);
}

/**
 * Opens the wallet's answer to an Annex C request with the request's recipient private key (JWK): the
 * DeviceResponse bytes, with the transcript hash of the HPKE info. Anything that is not our encrypted
 * response shape is refused precisely.
 */
export async function openAnnexCResponse(input: {
  answer: unknown;
  recipientPrivateJwk: JWK;
  stored: Pick<AnnexCStoredRequest, 'encryption_info' | 'origin'>;
}): Promise<AnnexCOpenedResponse> {
  const a = input.answer;
  if (typeof a === 'object' && a !== null && typeof (a as Json).error === 'string')
    throw new AppError('presentation_malformed', 'The wallet answered with an error.');
  const response = typeof a === 'object' && a !== null ? (a as Json).response : undefined;
  if (typeof response !== 'string' || !/^[A-Za-z0-9_-]+$/.test(response)) {
    throw new AppError(
      'response_not_encrypted',
      'An org-iso-mdoc answer is {response: base64url(CBOR EncryptedResponse)}, encrypted to the request key.',
    );
  }
  let enc: Uint8Array;
  let cipherText: Uint8Array;
  try {
    // Buffer decodes without jose's atob and per-character copy (a few % of an Annex C verification); a length
    // of 4n+1 is no encoding of whole bytes, refused here as jose's decode refused it.
    if (response.length % 4 === 1) throw new Error('not base64url (length 4n+1)');
    const decoded = cborDecode(Buffer.from(response, 'base64url')) as unknown;
    if (!Array.isArray(decoded) || decoded[0] !== 'dcapi' || !(decoded[1] instanceof Map))
      throw new Error('not ["dcapi", {...}]');
    const data = decoded[1] as Map<string, unknown>;
    const e = data.get('enc');
    const c = data.get('cipherText');
    if (!(e instanceof Uint8Array) || !(c instanceof Uint8Array)) throw new Error('enc/cipherText');
    enc = e;
    cipherText = c;
  } catch (e) {
    throw new AppError(
      'presentation_malformed',
      'The org-iso-mdoc response is not an Annex C EncryptedResponse ["dcapi", {enc, cipherText}].',
      { cause: e },
    );
  }
  const { encryption_info: encryptionInfo, origin } = input.stored;
  const infoHash = dcapiInfoHash(encryptionInfo, origin);
  const info = annexCSessionTranscriptBytes(encryptionInfo, origin, infoHash);
  let plaintext: Uint8Array;
  try {
    // node:crypto (annex-c-hpke.ts), once per answer: the same RFC 9180 suite the wallets seal with
    plaintext = hpkeOpenBase({
      recipient: hpkeRecipientKey(input.recipientPrivateJwk as JsonWebKey),
      enc,
      info,
      cipherText,
    });
  } catch (e) {
    // Another recipient key, a changed enc or ciphertext, or a transcript for another origin or request (the
    // HPKE info): the AEAD fails the same way for each, so one code.
    throw new AppError(
      'response_decryption_failed',
      'The org-iso-mdoc response cannot be opened with this request’s key and session transcript.',
      { cause: e },
    );
  }
  return new AnnexCOpenedResponse(
    new Uint8Array(plaintext.buffer, plaintext.byteOffset, plaintext.byteLength),
    { encryptionInfo, origin, infoHash },
  );
}

const toArrayBuffer = (b: Uint8Array): ArrayBuffer =>
  b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;

/** Whether `request` is the page's Annex C request data ({deviceRequest, encryptionInfo}): for the sandbox wallet. */
export const isAnnexCRequestData = (request: Json): boolean =>
  typeof request.deviceRequest === 'string' && typeof request.encryptionInfo === 'string';

/** The recipient key (raw uncompressed P-256 point) and nonce of an EncryptionInfo string. */
export function readEncryptionInfo(encryptionInfo: string): {
  recipientPublicKey: Uint8Array;
  nonce: Uint8Array;
} {
  const decoded = cborDecode(base64url.decode(encryptionInfo)) as unknown;
  if (!Array.isArray(decoded) || decoded[0] !== 'dcapi' || !(decoded[1] instanceof Map))
    throw new AppError('validation_failed', 'encryptionInfo is not ["dcapi", {...}].', { param: 'request' });
  const params = decoded[1] as Map<string, unknown>;
  const key = params.get('recipientPublicKey');
  const nonce = params.get('nonce');
  const x = key instanceof Map ? key.get(-2) : undefined;
  const y = key instanceof Map ? key.get(-3) : undefined;
  if (!(x instanceof Uint8Array) || !(y instanceof Uint8Array) || !(nonce instanceof Uint8Array))
    throw new AppError('validation_failed', 'encryptionInfo has no P-256 recipient key or nonce.', {
      param: 'request',
    });
  return { recipientPublicKey: Uint8Array.from([4, ...x, ...y]), nonce };
}

/** A wallet's side (the sandbox reference wallet): HPKE-seal a DeviceResponse to the request's recipient key. */
export async function sealAnnexCResponse(input: {
  deviceResponse: Uint8Array;
  encryptionInfo: string;
  origin: string;
}): Promise<{ response: string }> {
  const { recipientPublicKey } = readEncryptionInfo(input.encryptionInfo);
  const s = suite();
  const sender = await s.createSenderContext({
    recipientPublicKey: await s.kem.importKey('raw', toArrayBuffer(recipientPublicKey), true),
    info: toArrayBuffer(annexCSessionTranscript(input.encryptionInfo, input.origin).encode()),
  });
  const cipherText = new Uint8Array(await sender.seal(toArrayBuffer(input.deviceResponse)));
  return {
    response: base64url.encode(
      cborEncode([
        'dcapi',
        new Map<string, unknown>([
          ['enc', new Uint8Array(sender.enc)],
          ['cipherText', cipherText],
        ]),
      ]),
    ),
  };
}
