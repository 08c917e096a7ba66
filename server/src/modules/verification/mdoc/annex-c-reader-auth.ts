// Owns ISO/IEC 18013-5 (second edition) reader authentication of our Annex C DeviceRequest (ADR 0049): the
// top-level `readerAuthAll` that Apple Wallet expects (one COSE_Sign1 per reader certificate configured for the
// step's routes) and, where a route asks for it, the per-document `readerAuth`. Every signature is ES256 over
// detached payloads, `x5chain` (label 33) in the unprotected header (one certificate: a bstr; more: an array):
//
//   ReaderAuthenticationAllBytes = #6.24(bstr .cbor ["ReaderAuthenticationAll", SessionTranscript,
//                                                    [ItemsRequestBytes…], DeviceRequestInfoBytes / null])
//   ReaderAuthenticationBytes    = #6.24(bstr .cbor ["ReaderAuthentication", SessionTranscript, ItemsRequestBytes])
//   Sig_structure                = ["Signature1", protected {1: -7}, h'', <the bytes above>]
//
// Shapes cross-checked with stateofca/opencred lib/workflows/common/mdoc-reader-auth.js (which follows Multipaz
// DeviceRequest.kt addReaderAuthAll); the ISO text itself was not read.
import { createPrivateKey, sign } from 'node:crypto';
import { cborDecode, cborEncode, DataItem } from '@owf/mdoc';
import type { JWK } from 'jose';

/** COSE header labels and the ES256 algorithm id. */
const ALG = 1;
const X5CHAIN = 33;
const ES256 = -7;

/** A reader certificate that signs: its chain (DER, leaf first, no root) and its private key. */
export interface ReaderSigner {
  x5chain: Uint8Array[];
  privateJwk: JWK;
}

/** A COSE_Sign1 with a detached payload (null on the wire), ES256, the chain in the unprotected header. */
export function detachedSign1(signer: ReaderSigner, payload: Uint8Array): unknown[] {
  const protectedHeader = cborEncode(new Map([[ALG, ES256]]));
  const toBeSigned = cborEncode(['Signature1', protectedHeader, new Uint8Array(0), payload]);
  const key = createPrivateKey({ key: signer.privateJwk as never, format: 'jwk' });
  const signature = sign('sha256', toBeSigned, { key, dsaEncoding: 'ieee-p1363' });
  const chain = signer.x5chain.length === 1 ? signer.x5chain[0] : signer.x5chain;
  return [protectedHeader, new Map([[X5CHAIN, chain]]), null, new Uint8Array(signature)];
}

/**
 * The DeviceRequest CBOR of `itemsRequests` (each the CBOR of one ItemsRequest) signed by `all` (readerAuthAll)
 * and, per document, by `perDocument` (readerAuth). Version "1.1" when readerAuthAll is present (18013-5 2nd
 * edition), "1.0" otherwise. `sessionTranscript` is the encoded SessionTranscript.
 */
export function signedDeviceRequest(input: {
  itemsRequests: Uint8Array[];
  sessionTranscript: Uint8Array;
  all: readonly ReaderSigner[];
  perDocument?: ReaderSigner;
}): Uint8Array {
  const transcript = cborDecode(input.sessionTranscript) as unknown;
  const itemsRequestBytes = input.itemsRequests.map((b) => DataItem.fromBuffer(b));
  const docRequests = itemsRequestBytes.map((itemsRequest) => {
    const doc = new Map<string, unknown>([['itemsRequest', itemsRequest]]);
    if (input.perDocument) {
      const payload = cborEncode(
        DataItem.fromBuffer(cborEncode(['ReaderAuthentication', transcript, itemsRequest])),
      );
      doc.set('readerAuth', detachedSign1(input.perDocument, payload));
    }
    return doc;
  });
  const request = new Map<string, unknown>([
    ['version', input.all.length > 0 ? '1.1' : '1.0'],
    ['docRequests', docRequests],
  ]);
  if (input.all.length > 0) {
    const payload = cborEncode(
      DataItem.fromBuffer(cborEncode(['ReaderAuthenticationAll', transcript, itemsRequestBytes, null])),
    );
    request.set(
      'readerAuthAll',
      input.all.map((s) => detachedSign1(s, payload)),
    );
  }
  return cborEncode(request);
}
