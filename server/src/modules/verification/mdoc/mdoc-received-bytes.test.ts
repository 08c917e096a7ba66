// The patched @owf/mdoc (patches/@owf__mdoc@0.6.0.patch, ADR 0045 "mdoc") computes digests and signatures over
// the bytes as received, as ISO 18013-5 and RFC 9052 require, not over a re-encoding of the decoded value: a
// sender whose CBOR differs from cbor-x's (here: non-minimal integer and length encodings, an indefinite-length
// map) is verified. Without the patch each of these fails (the re-encoding is minimal and definite).
import 'reflect-metadata';
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import {
  CoseKey,
  cborDecode,
  cborEncode,
  DataItem,
  DeviceAuthentication,
  DeviceSigned,
  DeviceSignedItems,
  type IssuerAuth,
  IssuerNamespaces,
  type IssuerSignedItem,
  ProtectedHeaders,
  SessionTranscript,
  Sign1,
  ValidityInfo,
} from '@owf/mdoc';
import { describe, expect, it } from 'vitest';
import { createMdocContext } from './mdoc-context';

const text = (s: string) => {
  const b = Buffer.from(s);
  if (b.length >= 24) throw new Error('short strings only');
  return Buffer.concat([Buffer.from([0x60 + b.length]), b]);
};
/** #6.24(bstr) around `inner`, with a minimal length. */
const tag24 = (inner: Buffer) => Buffer.concat([Buffer.from([0xd8, 0x18, 0x58, inner.length]), inner]);

describe('@owf/mdoc (patched): digests and signatures over the received bytes', () => {
  it('digests an IssuerSignedItem over its received bytes (IssuerSignedItemBytes)', async () => {
    // {digestID: 5 (as 0x18 0x05, not minimal), random: 16 bytes, elementIdentifier, elementValue}
    const item = Buffer.concat([
      Buffer.from([0xa4]),
      text('digestID'),
      Buffer.from([0x18, 0x05]),
      text('random'),
      Buffer.from([0x50]),
      Buffer.alloc(16, 7),
      text('elementIdentifier'),
      text('given_name'),
      text('elementValue'),
      text('Erika'),
    ]);
    const received = tag24(item);
    const namespaces = IssuerNamespaces.fromEncodedStructure(
      new Map([['org.iso.18013.5.1', [cborDecode(received, { unwrapTopLevelDataItem: false })]]]),
    );
    const decoded = namespaces.issuerNamespaces.get('org.iso.18013.5.1')?.[0] as IssuerSignedItem;
    expect(decoded.elementValue).toBe('Erika');
    expect(Buffer.from(decoded.issuerSignedItemBytes).equals(received)).toBe(true);
    // a re-encoding would write digestID minimally, so its digest would not be the issuer's
    expect(Buffer.from(decoded.encode({ asDataItem: true })).equals(received)).toBe(false);

    const digest = createHash('sha256').update(received).digest();
    const issuerAuth = {
      mobileSecurityObject: {
        digestAlgorithm: 'SHA-256',
        valueDigests: { valueDigests: new Map([['org.iso.18013.5.1', new Map([[5, digest]])]]) },
      },
    } as unknown as IssuerAuth;
    const ctx = createMdocContext();
    expect(await decoded.isValid('org.iso.18013.5.1', issuerAuth, ctx)).toBe(true);
    // and the holder presents the issuer's bytes unchanged
    const reEncoded = namespaces.encodedStructure.get('org.iso.18013.5.1')?.[0] as DataItem;
    expect(Buffer.from(cborEncode(reEncoded)).equals(received)).toBe(true);
  });

  it('checks a COSE_Sign1 over its protected header as received', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    // {1: -7} with -7 written as 0x39 0x00 0x06 (not minimal: 0x26)
    const protectedBytes = Buffer.from([0xa1, 0x01, 0x39, 0x00, 0x06]);
    const payload = Buffer.from('payload');
    const toBeSigned = cborEncode(['Signature1', protectedBytes, new Uint8Array(), payload]);
    const signature = sign('sha256', toBeSigned, { key: privateKey, dsaEncoding: 'ieee-p1363' });
    const sign1 = Sign1.decode(cborEncode([protectedBytes, new Map(), payload, signature]));
    expect(sign1.signatureAlgorithmName).toBe('ES256');
    const jwk = publicKey.export({ format: 'jwk' });
    const key = CoseKey.fromJwk({ kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y } as never);
    expect(await createMdocContext().cose.sign1.verify({ sign1, key })).toBe(true);
  });

  it('builds DeviceAuthentication over the received DeviceNameSpacesBytes', () => {
    // an empty DeviceNameSpaces map written indefinite-length (0xbf 0xff), as a wallet may
    const nameSpacesBytes = Buffer.from([0xbf, 0xff]);
    const deviceSigned = DeviceSigned.fromEncodedStructure(
      new Map<string, unknown>([
        ['nameSpaces', DataItem.fromBuffer(nameSpacesBytes)],
        [
          'deviceAuth',
          new Map([['deviceSignature', [new Uint8Array([0xa0]), new Map(), null, new Uint8Array(64)]]]),
        ],
      ]),
    );
    const transcript = SessionTranscript.decode(
      cborEncode([null, null, ['OpenID4VPDCAPIHandover', new Uint8Array(32)]]),
    );
    const bytes = DeviceAuthentication.create({
      sessionTranscript: transcript,
      docType: 'org.iso.18013.5.1.mDL',
      deviceNamespaces: deviceSigned.deviceNamespaces,
    }).encode({ asDataItem: true });
    const inner = cborDecode(bytes) as unknown[];
    expect(inner[0]).toBe('DeviceAuthentication');
    expect(Buffer.from((inner[3] as DataItem).buffer).equals(nameSpacesBytes)).toBe(true);
  });
});

// ADR 0059 amendment 4: the patch writes the Sig_structure and the tag 24 wrapping of an encoded structure itself,
// and checks dates and unions with compiled predicates. The bytes must be cborEncode's, and every refusal zod's.
describe('@owf/mdoc (patched): the direct encodes and the compiled checks', () => {
  const lengths = [0, 1, 23, 24, 255, 256, 65535, 65536];

  it('writes the Sig_structure as cborEncode does, for every length form of its byte strings', () => {
    for (const payloadLength of lengths) {
      for (const [aadLength, headerLength] of [
        [0, 0],
        [24, 3],
        [300, 260],
      ] as const) {
        const protectedBytes = cborEncode(new Map([[33, new Uint8Array(headerLength)]]));
        const payload = new Uint8Array(payloadLength).fill(payloadLength & 0xff);
        const externalAad = new Uint8Array(aadLength).fill(1);
        const protectedHeaders = ProtectedHeaders.fromEncodedStructure(protectedBytes);
        const written = Sign1.toBeSigned({ payload, protectedHeaders, externalAad });
        const encoded = cborEncode(['Signature1', protectedBytes, externalAad, payload]);
        expect(Buffer.from(written).equals(Buffer.from(encoded))).toBe(true);
      }
    }
  });

  it('wraps an encoded structure in tag 24 as cborEncode(DataItem) does', () => {
    for (const valueLength of [1, 200, 70000]) {
      const items = DeviceSignedItems.create({
        deviceSignedItems: new Map([['element', new Uint8Array(valueLength)]]),
      });
      const viaDataItem = cborEncode(DataItem.fromData(items.encodedStructure));
      expect(Buffer.from(items.encode({ asDataItem: true })).equals(Buffer.from(viaDataItem))).toBe(true);
    }
  });

  it('refuses an invalid date and a wrong key type through zod, as before', () => {
    const validity = (validFrom: unknown) =>
      new Map<string, unknown>([
        ['signed', new Date('2026-01-01T00:00:00Z')],
        ['validFrom', validFrom],
        ['validUntil', new Date('2027-01-01T00:00:00Z')],
      ]);
    expect(ValidityInfo.fromEncodedStructure(validity(new Date('2026-01-01T00:00:00Z'))).validFrom).toEqual(
      new Date('2026-01-01T00:00:00Z'),
    );
    // the structure's name, read only for a refusal, still names it
    expect(() => ValidityInfo.fromEncodedStructure(validity(new Date(Number.NaN)))).toThrow(
      /Error decoding ValidityInfo[\s\S]*validFrom/,
    );
    expect(() => ValidityInfo.fromEncodedStructure(validity('2026-01-01'))).toThrow(/validFrom/);
    expect(
      CoseKey.fromEncodedStructure(
        new Map<number, unknown>([
          [1, 2],
          [-1, 1],
        ]),
      ).keyType,
    ).toBe(2);
    expect(() =>
      CoseKey.fromEncodedStructure(
        new Map<number, unknown>([
          [1, true],
          [-1, 1],
        ]),
      ),
    ).toThrow(/Error decoding CoseKey[\s\S]*Expected string, received boolean/);
  });
});
