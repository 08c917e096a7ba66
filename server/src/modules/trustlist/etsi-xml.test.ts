// The signed-list reader on lists signed at test time (xml-crypto, enveloped XAdES-BES): what it accepts, and
// that it refuses a tampered list, an expired one, an untrusted signer, a signature that covers only part of
// the list (signature wrapping), and a list whose data was moved out of the signed root.
import 'reflect-metadata';
import { beforeAll, describe, expect, it } from 'vitest';
import { SignedXml } from 'xml-crypto';
import { readSignedTrustList, TrustListRefusal } from './etsi-xml';
import { type ListSigner, listSigner, loteXml, signList } from './trust-list-fixtures';

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
