// The independent wallet's HAIP 1.0 / EU-wallet side, with node:crypto and jose only:
// - request_uri_method=post (OpenID4VP §5.10): POST wallet_metadata (JSON) and a fresh wallet_nonce to
//   request_uri as application/x-www-form-urlencoded; the answer is the request object, signed (checked like
//   checkRequestObject) or, when we asked for it, a JWE to our key (decrypted here) around the signed one; its
//   wallet_nonce must be ours.
// - DCQL trusted_authorities of type aki: the Authority and Subject Key Identifiers of certificates, read from
//   the DER by hand (a few lines of ASN.1), and the x5chain of a held mdoc's issuerAuth, so the wallet can tell
//   which of its documents a query's trusted_authorities allow.
import { randomBytes } from 'node:crypto';
import { compactDecrypt, exportJWK, generateKeyPair, type JWK } from 'jose';
import type { HeldMdoc } from './annex-c-wallet';
import { decode } from './cbor';
import { checkRequestObject } from './cross-device';

type Json = Record<string, unknown>;

/** What the EU reference wallet sends, as seen in a trace (notes/real-wallets.md §3.2). */
export const EU_WALLET_METADATA: Json = {
  client_id_prefixes_supported: ['x509_hash'],
  request_object_signing_alg_values_supported: ['ES256'],
  response_types_supported: ['vp_token'],
  vp_formats_supported: { mso_mdoc: { issuerauth_alg_values: [-7, -9], deviceauth_alg_values: [-7, -9] } },
  authorization_encryption_enc_values_supported: ['A256GCM'],
};

export interface PostedRequest {
  status: number;
  contentType: string | null;
  /** The request object's claims (when status 200). */
  claims?: Json;
  /** The problem body (when not 200). */
  problem?: Json;
  /** The JWE header when the object came encrypted. */
  jweHeader?: Json;
  walletNonce: string;
}

/**
 * POSTs to the request_uri of an openid4vp:// link. `encrypt`: add a fresh P-256 key to the metadata and ask
 * for an encrypted request object. `form`: raw form fields instead (for malformed cases).
 */
export async function postRequestUri(
  uri: string,
  verifierRootPem: string,
  opts: { metadata?: Json; encrypt?: boolean; form?: Record<string, string> } = {},
): Promise<PostedRequest> {
  const link = new URL(uri);
  if (link.searchParams.get('request_uri_method') !== 'post') throw new Error('the link does not offer POST');
  const requestUri = link.searchParams.get('request_uri') ?? '';
  const walletNonce = randomBytes(16).toString('base64url');
  let privateKey: CryptoKey | undefined;
  let metadata = opts.metadata ?? EU_WALLET_METADATA;
  if (opts.encrypt) {
    const pair = await generateKeyPair('ECDH-ES', { crv: 'P-256', extractable: true });
    privateKey = pair.privateKey as CryptoKey;
    const pub: JWK = {
      ...(await exportJWK(pair.publicKey)),
      kid: 'wallet-enc-1',
      use: 'enc',
      alg: 'ECDH-ES',
    };
    metadata = {
      ...metadata,
      jwks: { keys: [pub] },
      request_object_encryption_alg_values_supported: ['ECDH-ES'],
      request_object_encryption_enc_values_supported: ['A256GCM'],
    };
  }
  const form = opts.form ?? { wallet_metadata: JSON.stringify(metadata), wallet_nonce: walletNonce };
  const res = await fetch(requestUri, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      accept: 'application/oauth-authz-req+jwt',
    },
    body: new URLSearchParams(form).toString(),
  });
  const contentType = res.headers.get('content-type');
  if (res.status !== 200)
    return { status: res.status, contentType, problem: (await res.json()) as Json, walletNonce };
  let object = await res.text();
  let jweHeader: Json | undefined;
  if (object.split('.').length === 5) {
    if (!privateKey) throw new Error('an encrypted request object we did not ask for');
    const opened = await compactDecrypt(object, privateKey);
    jweHeader = opened.protectedHeader as Json;
    object = new TextDecoder().decode(opened.plaintext);
  }
  const claims = await checkRequestObject(object, verifierRootPem);
  return { status: 200, contentType, claims, walletNonce, ...(jweHeader ? { jweHeader } : {}) };
}

/** The x5c of a signed request object's JOSE header (base64 DER strings). */
export function jarX5c(jar: string): string[] {
  const header = JSON.parse(Buffer.from(jar.split('.')[0] as string, 'base64url').toString('utf8')) as Json;
  return header.x5c as string[];
}

// --- a minimal DER reader: enough to find one extension's value in a certificate ---

interface Tlv {
  tag: number;
  start: number; // first content byte
  end: number; // one past the last content byte
}

function tlv(der: Uint8Array, at: number): Tlv {
  const tag = der[at] as number;
  let len = der[at + 1] as number;
  let start = at + 2;
  if (len & 0x80) {
    const n = len & 0x7f;
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + (der[at + 2 + i] as number);
    start += n;
  }
  return { tag, start, end: start + len };
}

function children(der: Uint8Array, parent: Tlv): Tlv[] {
  const out: Tlv[] = [];
  for (let at = parent.start; at < parent.end; ) {
    const t = tlv(der, at);
    out.push(t);
    at = t.end;
  }
  return out;
}

const OID_AKI = Buffer.from([0x06, 0x03, 0x55, 0x1d, 0x23]); // 2.5.29.35
const OID_SKI = Buffer.from([0x06, 0x03, 0x55, 0x1d, 0x0e]); // 2.5.29.14

/** The extnValue (inner bytes of the OCTET STRING) of the extension with this OID, if present. */
function extensionValue(der: Uint8Array, oid: Buffer): Uint8Array | undefined {
  const cert = tlv(der, 0);
  const tbs = children(der, cert)[0] as Tlv;
  const explicit3 = children(der, tbs).find((c) => c.tag === 0xa3);
  if (!explicit3) return undefined;
  const exts = children(der, explicit3)[0] as Tlv;
  for (const ext of children(der, exts)) {
    const parts = children(der, ext);
    const id = parts[0] as Tlv;
    if (!Buffer.from(der.subarray(id.start - 2, id.end)).equals(oid)) continue;
    const value = parts[parts.length - 1] as Tlv; // after the optional critical BOOLEAN
    return der.subarray(value.start, value.end);
  }
  return undefined;
}

/** AuthorityKeyIdentifier.keyIdentifier ([0] IMPLICIT OCTET STRING), base64url. */
export function akiOf(der: Uint8Array): string | undefined {
  const v = extensionValue(der, OID_AKI);
  if (!v) return undefined;
  const seq = tlv(v, 0);
  const keyId = children(v, seq).find((c) => c.tag === 0x80);
  return keyId ? Buffer.from(v.subarray(keyId.start, keyId.end)).toString('base64url') : undefined;
}

/** SubjectKeyIdentifier (an OCTET STRING), base64url. */
export function skiOf(der: Uint8Array): string | undefined {
  const v = extensionValue(der, OID_SKI);
  if (!v) return undefined;
  const os = tlv(v, 0);
  return Buffer.from(v.subarray(os.start, os.end)).toString('base64url');
}

/** The issuerAuth x5chain (COSE header 33) of a held mdoc: DER certificates, leaf first. */
export function heldMdocChain(held: HeldMdoc): Uint8Array[] {
  const issuerSigned = decode(new Uint8Array(Buffer.from(held.issuerSigned, 'base64url'))) as Map<
    string,
    unknown
  >;
  const issuerAuth = issuerSigned.get('issuerAuth') as unknown[];
  const unprotected = issuerAuth[1] as Map<number, unknown>;
  const x5chain = unprotected.get(33);
  return (Array.isArray(x5chain) ? x5chain : [x5chain]) as Uint8Array[];
}

/** The docType of a held mdoc, from its MSO. */
export function heldMdocDocType(held: HeldMdoc): string {
  const issuerSigned = decode(new Uint8Array(Buffer.from(held.issuerSigned, 'base64url'))) as Map<
    string,
    unknown
  >;
  const issuerAuth = issuerSigned.get('issuerAuth') as unknown[];
  const msoTagged = decode(issuerAuth[2] as Uint8Array) as { value: Uint8Array };
  const mso = decode(msoTagged.value) as Map<string, unknown>;
  return mso.get('docType') as string;
}

/** Whether a DCQL credential query's aki trusted_authorities allow a credential with this chain. */
export function allowedByTrustedAuthorities(query: Json, chain: Uint8Array[]): boolean {
  const tas = query.trusted_authorities as { type: string; values: string[] }[] | undefined;
  if (!tas) return true;
  const akis = chain.map(akiOf).filter((a): a is string => a !== undefined);
  return tas.some((ta) => ta.type === 'aki' && ta.values.some((v) => akis.includes(v)));
}
