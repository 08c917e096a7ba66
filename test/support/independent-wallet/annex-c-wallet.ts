// An independent mdoc wallet for ISO/IEC 18013-7 Annex C (`org-iso-mdoc` over the Digital Credentials API),
// written for our tests from the published structures and sharing no library with the verifier: its own CBOR
// (./cbor.ts), node:crypto for ES256 (COSE_Sign1), @hpke/core for HPKE. It holds mdocs as issued (base64url
// IssuerSigned, what the sandbox mdoc issuer hands a wallet) with their device private keys, and answers a
// request {deviceRequest, encryptionInfo} the way a phone wallet does:
//   1. decode EncryptionInfo ["dcapi", {nonce, recipientPublicKey}] and the DeviceRequest;
//   2. pick the first DocRequest it can answer fully, disclose exactly its elements (IssuerSignedItemBytes kept);
//   3. SessionTranscript = [null, null, ["dcapi", SHA-256(CBOR [encryptionInfo b64u, origin])]];
//   4. DeviceAuthentication = ["DeviceAuthentication", SessionTranscript, docType, #6.24(CBOR {})], signed as a
//      detached COSE_Sign1 (ES256) by the device key;
//   5. HPKE base mode (DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-128-GCM) to the recipient key, info = CBOR
//      of the SessionTranscript, empty aad; answer {response: b64u(CBOR ["dcapi", {enc, cipherText}])}.
// Overrides make it lie in exactly one way, for the tamper tests.
// test/api/independent-wallet-imports.test.ts keeps the verifier's libraries (and our server code) out of here.
import { createHash, createPrivateKey, generateKeyPairSync, sign } from 'node:crypto';
import { Aes128Gcm, CipherSuite, DhkemP256HkdfSha256, HkdfSha256 } from '@hpke/core';
import { decode, embed, encode, Tagged } from './cbor';
import { type DcqlQuery, matchDcql, queriesInOrder } from './dcql-match';
import { readReaderAuth } from './reader-auth';
import { forQuery, readTransactionData, txHashBytes } from './transaction-data';

export interface HeldMdoc {
  /** base64url CBOR IssuerSigned, as issued. */
  issuerSigned: string;
  /** The device private key (JWK, P-256) the MSO's deviceKey belongs to. */
  devicePrivateJwk: JsonWebKey;
}

export interface AnnexCRequest {
  deviceRequest: string;
  encryptionInfo: string;
}

export interface AnnexCOverrides {
  /** The origin bound in the transcript (HPKE info and device signature) instead of the page's. */
  origin?: string;
  /** Encrypt to this P-256 public key (raw, uncompressed) instead of the request's recipient key. */
  recipientPublicKey?: Uint8Array;
  /** Flip a bit of the encapsulated key (enc) after encryption. */
  tamperEnc?: boolean;
  /** Flip a bit of the ciphertext after encryption. */
  tamperCipherText?: boolean;
  /** Sign DeviceAuthentication with this private JWK instead of the device key. */
  deviceKey?: JsonWebKey;
  /** Flip a bit of the device signature after signing. */
  tamperDeviceSignature?: boolean;
  /** The COSE alg of the device signature (default -7 ES256; -9 is ESP256, the same ECDSA P-256/SHA-256). */
  deviceAlg?: number;
  /** Leave these requested elements out. */
  omitElements?: string[];
  /** Change this disclosed element's value (its digest in the MSO no longer matches). */
  tamperElement?: string;
  /** Change a digest inside the signed MSO (the issuer signature no longer covers it). */
  tamperMsoDigest?: boolean;
  /** Answer with the held document of this docType, whatever was asked. */
  doctype?: string;
  /** Put this EncryptionInfo string in the transcript instead of the request's. */
  encryptionInfo?: string;
  /** OpenID4VP: leave the device-signed transaction data namespaces out. */
  omitTransactionData?: boolean;
  /** OpenID4VP: bind the hash of this string instead of each transaction_data entry. */
  transactionDataAs?: string;
}

const b64u = {
  encode: (b: Uint8Array) => Buffer.from(b).toString('base64url'),
  decode: (s: string) => new Uint8Array(Buffer.from(s, 'base64url')),
};
const sha256 = (b: Uint8Array) => new Uint8Array(createHash('sha256').update(b).digest());
const asMap = (v: unknown, what: string): Map<unknown, unknown> => {
  if (!(v instanceof Map)) throw new Error(`${what} is not a CBOR map`);
  return v;
};
const unwrap = (v: unknown, what: string): unknown => {
  if (!(v instanceof Tagged) || v.tag !== 24 || !(v.value instanceof Uint8Array))
    throw new Error(`${what} is not #6.24(bstr)`);
  return decode(v.value);
};
const flipBit = (b: Uint8Array): Uint8Array => {
  const c = b.slice();
  c[c.length - 1] = (c[c.length - 1] as number) ^ 0x01;
  return c;
};

/** What the wallet read from a request (for assertions: what its user would see). */
export interface ReadRequest {
  nonce: Uint8Array;
  recipientPublicKey: Uint8Array;
  docRequests: { docType: string; elements: [string, string][] }[];
}

export function readAnnexCRequest(request: AnnexCRequest): ReadRequest {
  const info = decode(b64u.decode(request.encryptionInfo));
  if (!Array.isArray(info) || info[0] !== 'dcapi') throw new Error('EncryptionInfo is not ["dcapi", …]');
  const params = asMap(info[1], 'EncryptionParameters');
  const nonce = params.get('nonce');
  const cose = asMap(params.get('recipientPublicKey'), 'recipientPublicKey');
  if (!(nonce instanceof Uint8Array) || nonce.length < 16) throw new Error('nonce must be >= 16 bytes');
  if (cose.get(1) !== 2 || cose.get(-1) !== 1) throw new Error('recipientPublicKey must be EC2 P-256');
  const x = cose.get(-2) as Uint8Array;
  const y = cose.get(-3) as Uint8Array;
  const deviceRequest = asMap(decode(b64u.decode(request.deviceRequest)), 'DeviceRequest');
  // 1.1 (18013-5 second edition) when the request carries readerAuthAll
  if (!['1.0', '1.1'].includes(String(deviceRequest.get('version'))))
    throw new Error('DeviceRequest version must be 1.0 or 1.1');
  const docRequests = (deviceRequest.get('docRequests') as unknown[]).map((d) => {
    const items = asMap(
      unwrap(asMap(d, 'DocRequest').get('itemsRequest'), 'ItemsRequestBytes'),
      'ItemsRequest',
    );
    const elements: [string, string][] = [];
    for (const [ns, els] of asMap(items.get('nameSpaces'), 'nameSpaces'))
      for (const el of asMap(els, 'DataElements').keys()) elements.push([String(ns), String(el)]);
    return { docType: String(items.get('docType')), elements };
  });
  return { nonce, recipientPublicKey: Uint8Array.from([4, ...x, ...y]), docRequests };
}

interface ParsedIssuerSigned {
  docType: string;
  issuerAuth: unknown[];
  /** namespace -> [elementIdentifier, IssuerSignedItemBytes (as issued)] */
  items: Map<string, [string, Tagged][]>;
}

function parseIssuerSigned(encoded: string): ParsedIssuerSigned {
  const issuerSigned = asMap(decode(b64u.decode(encoded)), 'IssuerSigned');
  const issuerAuth = issuerSigned.get('issuerAuth') as unknown[];
  const payload = issuerAuth[2] as Uint8Array;
  const mso = asMap(unwrap(decode(payload), 'MobileSecurityObjectBytes'), 'MSO');
  const items = new Map<string, [string, Tagged][]>();
  for (const [ns, list] of asMap(issuerSigned.get('nameSpaces'), 'IssuerNameSpaces')) {
    items.set(
      String(ns),
      (list as Tagged[]).map((t) => [
        String(asMap(unwrap(t, 'IssuerSignedItemBytes'), 'IssuerSignedItem').get('elementIdentifier')),
        t,
      ]),
    );
  }
  return { docType: String(mso.get('docType')), issuerAuth, items };
}

/** [null, null, ["dcapi", SHA-256(CBOR [encryptionInfo, origin])]] */
export function dcapiSessionTranscript(encryptionInfo: string, origin: string): unknown[] {
  return [null, null, ['dcapi', sha256(encode([encryptionInfo, origin]))]];
}

export class AnnexCWallet {
  /**
   * `requireReaderAuth`: behave like Apple Wallet and answer only a DeviceRequest whose readerAuthAll has at
   * least one entry and every entry verifies over this request's transcript (./reader-auth.ts).
   */
  constructor(
    private readonly held: HeldMdoc[],
    private readonly opts: { requireReaderAuth?: boolean } = {},
  ) {}

  /** The DC API answer `data` for one Annex C request, as the page's origin is reported by the browser. */
  async answer(
    request: AnnexCRequest,
    origin: string,
    o: AnnexCOverrides = {},
  ): Promise<{ response: string }> {
    const read = readAnnexCRequest(request);
    const encryptionInfo = o.encryptionInfo ?? request.encryptionInfo;
    const transcript = dcapiSessionTranscript(encryptionInfo, o.origin ?? origin);
    if (this.opts.requireReaderAuth) {
      const signatures = readReaderAuth(request.deviceRequest, transcript).readerAuthAll;
      if (signatures.length === 0 || !signatures.every((x) => x.valid))
        throw new Error('reader authentication required: no valid readerAuthAll');
    }
    const { deviceResponse } = this.present(read.docRequests, transcript, o);

    const suite = new CipherSuite({
      kem: new DhkemP256HkdfSha256(),
      kdf: new HkdfSha256(),
      aead: new Aes128Gcm(),
    });
    const recipientPublicKey = await suite.kem.importKey(
      'raw',
      toArrayBuffer(o.recipientPublicKey ?? read.recipientPublicKey),
      true,
    );
    const sender = await suite.createSenderContext({
      recipientPublicKey,
      info: toArrayBuffer(encode(transcript)),
    });
    let cipherText: Uint8Array = new Uint8Array(await sender.seal(toArrayBuffer(deviceResponse)));
    let enc: Uint8Array = new Uint8Array(sender.enc);
    if (o.tamperEnc) enc = flipBit(enc);
    if (o.tamperCipherText) cipherText = flipBit(cipherText);
    return {
      response: b64u.encode(
        encode([
          'dcapi',
          new Map<string, unknown>([
            ['enc', enc],
            ['cipherText', cipherText],
          ]),
        ]),
      ),
    };
  }

  /**
   * The same wallet answering an unsigned OpenID4VP request over the DC API (`openid4vp-v1-unsigned`,
   * response_mode dc_api) with an mdoc: its own reading of the DCQL query (the first mso_mdoc credential query,
   * in credential_sets order, whose doctype and elements it holds), the OpenID4VP DC API handover
   * `["OpenID4VPDCAPIHandover", SHA-256(CBOR [origin, nonce, null])]`, and `{vp_token: {<query id>: [b64u]}}`.
   */
  answerOpenId4VpDcApi(
    request: Record<string, unknown>,
    origin: string,
    o: AnnexCOverrides = {},
  ): { vp_token: Record<string, string[]> } {
    if (request.response_mode !== 'dc_api' || typeof request.nonce !== 'string')
      throw new Error('not an unsigned OpenID4VP DC API request');
    return this.answerWithHandover(
      request,
      'OpenID4VPDCAPIHandover',
      [o.origin ?? origin, request.nonce, null],
      o,
    );
  }

  /**
   * An OpenID4VP answer (vp_token) to the request's DCQL with an mdoc, its device signature over
   * `[null, null, [handoverType, SHA-256(CBOR handoverInfo)]]` (OpenID4VP 1.0 B.2.6).
   */
  answerWithHandover(
    request: Record<string, unknown>,
    handoverType: string,
    handoverInfo: unknown[],
    o: AnnexCOverrides = {},
  ): { vp_token: Record<string, string[]> } {
    // Its own DCQL matching (dcql-match.ts): the first mso_mdoc query, in preference order, that a held
    // document answers, and exactly the claim set it can disclose.
    const dcql = request.dcql_query as DcqlQuery;
    const holdings = this.held.map((h) => {
      const parsed = parseIssuerSigned(h.issuerSigned);
      return {
        format: 'mso_mdoc' as const,
        type: parsed.docType,
        holds: ([ns, el]: string[]) => parsed.items.get(String(ns))?.some(([id]) => id === el) ?? false,
      };
    });
    const match = o.doctype
      ? (() => {
          const query = queriesInOrder(dcql).find((q) => q.format === 'mso_mdoc');
          if (!query) throw new Error('the request asks for no mdoc');
          return { query, paths: (query.claims ?? []).map((c) => c.path.map(String)) };
        })()
      : matchDcql(dcql, 'mso_mdoc', holdings);
    const docRequests = [
      {
        id: match.query.id,
        docType: String(match.query.meta?.doctype_value),
        elements: match.paths.map(([ns, el]) => [String(ns), String(el)] as [string, string]),
      },
    ];
    const transcript = [null, null, [handoverType, sha256(encode(handoverInfo))]];
    // Transaction data for the answered query (sign, attestation), read and checked by transaction-data.ts; the
    // service's documented convention (README, walt.id's): one device-signed namespace per type holding
    // transaction_data_hash = SHA-256 of the string as received, and transaction_data_hash_alg.
    const txData = readTransactionData(
      request,
      dcql.credentials.map((c) => c.id),
    );
    const deviceSignedFor = (answered: { id: string }) => {
      const namespaces = new Map<string, Map<string, unknown>>();
      if (o.omitTransactionData) return namespaces;
      for (const td of forQuery(txData, answered.id)) {
        namespaces.set(
          td.type,
          new Map<string, unknown>([
            ['transaction_data_hash', txHashBytes(o.transactionDataAs ?? td.encoded)],
            ['transaction_data_hash_alg', 'sha-256'],
          ]),
        );
      }
      return namespaces;
    };
    const { deviceResponse, answered } = this.present(docRequests, transcript, o, deviceSignedFor);
    const id = (answered as { id?: string }).id as string;
    return { vp_token: { [id]: [b64u.encode(deviceResponse)] } };
  }

  /** Picks the first request it can answer, discloses exactly its elements, device-signs over `transcript`. */
  private present<R extends { docType: string; elements: [string, string][] }>(
    docRequests: R[],
    transcript: unknown[],
    o: AnnexCOverrides,
    deviceSignedFor: (answered: R) => Map<string, Map<string, unknown>> = () => new Map(),
  ): { deviceResponse: Uint8Array; answered: R } {
    const documents = this.held.map((h) => ({ h, parsed: parseIssuerSigned(h.issuerSigned) }));
    const holds = (d: (typeof documents)[number], [ns, el]: [string, string]) =>
      d.parsed.items.get(ns)?.some(([id]) => id === el) ?? false;
    let chosen: { doc: (typeof documents)[number]; elements: [string, string][]; answered: R } | undefined;
    if (o.doctype) {
      const doc = documents.find((d) => d.parsed.docType === o.doctype);
      const first = docRequests[0];
      if (!doc || !first) throw new Error('no such document held');
      const ns = [...doc.parsed.items.keys()][0] as string;
      chosen = {
        doc,
        elements: first.elements.map(([, el]) => [ns, el] as [string, string]),
        answered: first,
      };
    } else {
      for (const r of docRequests) {
        const doc = documents.find(
          (d) => d.parsed.docType === r.docType && r.elements.every((e) => holds(d, e)),
        );
        if (doc) {
          chosen = { doc, elements: r.elements, answered: r };
          break;
        }
      }
    }
    if (!chosen) throw new Error('the wallet holds no document that answers this request');
    const { doc } = chosen;
    const omit = new Set(o.omitElements ?? []);
    const nameSpaces = new Map<string, Tagged[]>();
    for (const [ns, el] of chosen.elements) {
      if (omit.has(el)) continue;
      const found = doc.parsed.items.get(ns)?.find(([id]) => id === el);
      if (!found) continue;
      let bytes = found[1];
      if (o.tamperElement === el) {
        const item = asMap(unwrap(bytes, 'IssuerSignedItemBytes'), 'IssuerSignedItem');
        const v = item.get('elementValue');
        item.set('elementValue', typeof v === 'boolean' ? !v : 'Tampered');
        bytes = embed(item);
      }
      nameSpaces.set(ns, [...(nameSpaces.get(ns) ?? []), bytes]);
    }
    let issuerAuth = doc.parsed.issuerAuth;
    if (o.tamperMsoDigest) {
      const mso = asMap(unwrap(decode(issuerAuth[2] as Uint8Array), 'MSO bytes'), 'MSO');
      const digests = asMap(mso.get('valueDigests'), 'valueDigests');
      const first = asMap([...digests.values()][0], 'DigestIDs');
      const [id, digest] = [...first.entries()][0] as [unknown, Uint8Array];
      first.set(id, flipBit(digest));
      issuerAuth = [issuerAuth[0], issuerAuth[1], encode(embed(mso)), issuerAuth[3]];
    }

    const deviceNameSpacesBytes = embed(deviceSignedFor(chosen.answered));
    const deviceAuthenticationBytes = encode(
      embed(['DeviceAuthentication', transcript, doc.parsed.docType, deviceNameSpacesBytes]),
    );
    const protectedHeader = encode(new Map([[1, o.deviceAlg ?? -7]])); // alg: ES256 (or the override)
    const toBeSigned = encode(['Signature1', protectedHeader, new Uint8Array(), deviceAuthenticationBytes]);
    const key = createPrivateKey({ key: (o.deviceKey ?? doc.h.devicePrivateJwk) as never, format: 'jwk' });
    let signature: Uint8Array = new Uint8Array(
      sign('sha256', toBeSigned, { key, dsaEncoding: 'ieee-p1363' }),
    );
    if (o.tamperDeviceSignature) signature = flipBit(signature);

    const deviceResponse = encode(
      new Map<string, unknown>([
        ['version', '1.0'],
        [
          'documents',
          [
            new Map<string, unknown>([
              ['docType', doc.parsed.docType],
              [
                'issuerSigned',
                new Map<string, unknown>([
                  ['nameSpaces', nameSpaces],
                  ['issuerAuth', issuerAuth],
                ]),
              ],
              [
                'deviceSigned',
                new Map<string, unknown>([
                  ['nameSpaces', deviceNameSpacesBytes],
                  [
                    'deviceAuth',
                    new Map([['deviceSignature', [protectedHeader, new Map(), null, signature]]]),
                  ],
                ]),
              ],
            ]),
          ],
        ],
        ['status', 0],
      ]),
    );
    return { deviceResponse, answered: chosen.answered };
  }
}

/** A fresh P-256 key pair: the private JWK and the raw uncompressed public key (for "another key" cases). */
export function freshP256(): { privateJwk: JsonWebKey; publicRaw: Uint8Array } {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = privateKey.export({ format: 'jwk' });
  return {
    privateJwk: jwk,
    publicRaw: Uint8Array.from([4, ...b64u.decode(jwk.x as string), ...b64u.decode(jwk.y as string)]),
  };
}

const toArrayBuffer = (b: Uint8Array): ArrayBuffer =>
  b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer;
