// The signed-list reader on lists signed at test time (xml-crypto, enveloped XAdES-BES): what it accepts, and
// that it refuses a tampered list, an expired one, an untrusted signer, a signature that covers only part of
// the list (signature wrapping), and a list whose data was moved out of the signed root. The same for ECDSA
// (P-256, P-384) signed lists, plus a DER-encoded ECDSA value and a SignatureMethod that does not fit the key.
import { createPublicKey, sign, verify } from 'node:crypto';
import 'reflect-metadata';
import { beforeAll, describe, expect, it } from 'vitest';
import { SignedXml } from 'xml-crypto';
import { readSignedTrustList, TrustListRefusal } from './etsi-xml';
import { type ListSigner, listSigner, loteXml, type SignListOptions, signList } from './trust-list-fixtures';
import { XMLDSIG } from './xmldsig-methods';

const NOW = new Date();
const HOUR = 3_600_000;

describe('readSignedTrustList', () => {
  let anchor: ListSigner;
  let issued: ListSigner;
  let entityCa: ListSigner;
  let xml: string;

  beforeAll(async () => {
    anchor = await listSigner('Scheme Operator', undefined, NOW);
    issued = await listSigner('List signer', anchor, NOW);
    entityCa = await listSigner('PID Provider CA', undefined, NOW);
    xml = await signList(
      loteXml({
        sequence: 7,
        issued: NOW,
        nextUpdate: new Date(NOW.getTime() + HOUR),
        entities: [{ name: 'PID Provider', certificates: [entityCa.cert] }],
      }),
      issued,
    );
  }, 60_000);

  it('reads entities, dates and the signer from a list signed by a certificate the anchor issued', async () => {
    const list = await readSignedTrustList(xml, [anchor.cert], NOW);
    expect(list).toMatchObject({ format: 'ts119602', sequenceNumber: '7' });
    expect(list.entities).toEqual([{ name: 'PID Provider', certificates: [entityCa.cert.toString('pem')] }]);
    expect(list.signer.subject).toBe('CN=List signer');
    expect(list.nextUpdate.getTime()).toBeGreaterThan(NOW.getTime());
  });

  it('refuses a tampered list, an expired one and an untrusted signer', async () => {
    const refusal = (x: string, at = NOW) =>
      readSignedTrustList(x, [anchor.cert], at).catch((e: unknown) => e);
    const tampered = await refusal(xml.replace('PID Provider', 'Mallory'));
    expect(tampered).toBeInstanceOf(TrustListRefusal);
    expect((tampered as Error).message).toMatch(/does not verify/);
    expect(((await refusal(xml, new Date(NOW.getTime() + 2 * HOUR))) as Error).message).toMatch(
      /expired|not signed/,
    );
    const stranger = await listSigner('Stranger', undefined, NOW);
    const other = await signList(xml.replace(/<ds:Signature[\s\S]*<\/ds:Signature>/, ''), stranger);
    expect(((await refusal(other)) as Error).message).toMatch(/not signed by a configured anchor/);
  }, 60_000);

  it('refuses a signature that covers only part of the list, so injected entities are never read', async () => {
    // A valid signature over the scheme information only (an Id reference, no enveloped whole-document
    // reference): an attacker could then add any entity beside it.
    const unsigned = loteXml({
      sequence: 8,
      issued: NOW,
      nextUpdate: new Date(NOW.getTime() + HOUR),
      entities: [{ name: 'Injected', certificates: [entityCa.cert] }],
    }).replace('<ListAndSchemeInformation>', '<ListAndSchemeInformation Id="scheme">');
    const pkcs8 = Buffer.from(await crypto.subtle.exportKey('pkcs8', issued.keys.privateKey)).toString(
      'base64',
    );
    const partial = new SignedXml({
      privateKey: `-----BEGIN PRIVATE KEY-----\n${pkcs8.replace(/(.{64})/g, '$1\n')}\n-----END PRIVATE KEY-----\n`,
      publicCert: issued.cert.toString('pem'),
      canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
      signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    });
    partial.addReference({
      xpath: "//*[@Id='scheme']",
      transforms: ['http://www.w3.org/2001/10/xml-exc-c14n#'],
      digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
    });
    partial.computeSignature(unsigned, { prefix: 'ds', location: { reference: '/*', action: 'append' } });
    const e = await readSignedTrustList(partial.getSignedXml(), [anchor.cert], NOW).catch((x: unknown) => x);
    expect((e as Error).message).toMatch(/does not cover the whole list/);
  }, 60_000);

  it('refuses a list wrapped in another root, with the signed list moved inside it', async () => {
    const body = xml.replace(/^<\?xml[^>]*\?>/, '');
    const wrapped = `<ListOfTrustedEntities xmlns="http://uri.etsi.org/19602/v1#"><TrustedEntitiesList><TrustedEntity><TrustedEntityInformation><TEName><Name>Injected</Name></TEName></TrustedEntityInformation></TrustedEntity></TrustedEntitiesList><Original>${body}</Original></ListOfTrustedEntities>`;
    const e = await readSignedTrustList(wrapped, [anchor.cert], NOW).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(TrustListRefusal);
    expect((e as Error).message).toMatch(/enveloped in the list root/);
  });
});

describe('readSignedTrustList on ECDSA-signed lists', () => {
  let anchor: ListSigner;
  let issued: ListSigner;
  let rsaAnchor: ListSigner;
  let entityCa: ListSigner;
  const list = (name = 'EC PID Provider') =>
    loteXml({
      sequence: 3,
      issued: NOW,
      nextUpdate: new Date(NOW.getTime() + HOUR),
      entities: [{ name, certificates: [entityCa.cert] }],
    });
  const refusal = (x: string, anchors = [anchor.cert]) =>
    readSignedTrustList(x, anchors, NOW).then(
      () => new Error('accepted'),
      (e: unknown) => e as Error,
    );
  const methodOf = (x: string) => /SignatureMethod Algorithm="([^"]+)"/.exec(x)?.[1];
  const signatureValueOf = (x: string) =>
    Buffer.from(/<ds:SignatureValue>([^<]+)</.exec(x)?.[1] ?? '', 'base64');

  beforeAll(async () => {
    anchor = await listSigner('EC Scheme Operator', undefined, NOW, 'P-384');
    issued = await listSigner('EC List signer', anchor, NOW, 'P-256');
    rsaAnchor = await listSigner('RSA Scheme Operator', undefined, NOW);
    entityCa = await listSigner('EC PID Provider CA', undefined, NOW, 'P-256');
  }, 60_000);

  it('accepts P-256 (ecdsa-sha256, issued by the anchor) and P-384 (ecdsa-sha384, the anchor) lists', async () => {
    for (const [signer, method, size] of [
      [issued, XMLDSIG.ecdsaSha256, 64],
      [anchor, XMLDSIG.ecdsaSha384, 96],
    ] as const) {
      const xml = await signList(list(), signer);
      expect([methodOf(xml), signatureValueOf(xml).length]).toEqual([method, size]);
      const read = await readSignedTrustList(xml, [anchor.cert], NOW);
      expect(read.entities).toEqual([
        { name: 'EC PID Provider', certificates: [entityCa.cert.toString('pem')] },
      ]);
      expect(read.signer.subject).toBe(signer.cert.subject);
    }
  }, 60_000);

  it('refuses a tampered EC list, an untrusted EC signer, and a trusted certificate over another key', async () => {
    const xml = await signList(list(), issued);
    expect((await refusal(xml.replace('EC PID Provider<', 'Mallory<'))).message).toMatch(/does not verify/);
    const stranger = await listSigner('EC Stranger', undefined, NOW, 'P-256');
    expect((await refusal(await signList(list(), stranger))).message).toMatch(
      /not signed by a configured anchor/,
    );
    // the stranger's signature, with the trusted signer's certificate put into KeyInfo
    const b64 = (s: ListSigner) => Buffer.from(s.cert.rawData).toString('base64');
    const forged = (await signList(list(), stranger)).replace(b64(stranger), b64(issued));
    const e = await refusal(forged);
    expect(e).toBeInstanceOf(TrustListRefusal);
    expect(e.message).toMatch(/does not verify/);
  }, 60_000);

  it('refuses a DER-encoded ECDSA signature value, though it is a valid signature', async () => {
    let der = Buffer.alloc(0);
    let signed = Buffer.alloc(0);
    const opts: SignListOptions = {
      signatureValue: (signedInfo, key) => {
        signed = Buffer.from(signedInfo);
        der = sign('sha256', signed, { key, dsaEncoding: 'der' });
        return der.toString('base64');
      },
    };
    const xml = await signList(list(), issued, opts);
    expect(der[0]).toBe(0x30); // an ASN.1 SEQUENCE, and a valid signature of the canonical SignedInfo
    const key = createPublicKey(issued.cert.toString('pem'));
    expect(verify('sha256', signed, { key, dsaEncoding: 'der' }, der)).toBe(true);
    expect(methodOf(xml)).toBe(XMLDSIG.ecdsaSha256);
    const e = await refusal(xml);
    expect(e).toBeInstanceOf(TrustListRefusal);
    expect(e.message).toMatch(/does not verify: the ECDSA signature value is \d+ bytes, not r\|\|s of 64/);
  }, 60_000);

  it('refuses a SignatureMethod that does not fit the signer key (algorithm confusion)', async () => {
    const raw = (signedInfo: string, key: string) =>
      sign('sha256', Buffer.from(signedInfo), key).toString('base64');
    // an RSA anchor's PKCS#1 signature declared as ecdsa-sha256
    const rsaAsEc = await signList(list(), rsaAnchor, { method: XMLDSIG.ecdsaSha256, signatureValue: raw });
    expect((await refusal(rsaAsEc, [rsaAnchor.cert])).message).toMatch(
      /does not verify: the signature method ecdsa-sha256 needs an EC key; the signer key is rsa/,
    );
    // an EC key's (DER) ECDSA signature declared as rsa-sha256, which a SHA-256 verifier would otherwise accept
    const ecAsRsa = await signList(list(), issued, { method: XMLDSIG.rsaSha256, signatureValue: raw });
    expect((await refusal(ecAsRsa)).message).toMatch(
      /does not verify: the signature method rsa-sha256 needs an RSA key; the signer key is ec/,
    );
  }, 60_000);
});
