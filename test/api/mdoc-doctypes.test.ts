// Apple's Digital ID (`org.iso.23220.photoid.1`, ISO/IEC TS 23220-4 Photo ID) and Google's ID pass
// (`com.google.wallet.idcard.1`) beside the mDL (issue 26, ADR 0049), as a business and a wallet observe them:
// the requests ask for them (DCQL and the Annex C DeviceRequest), a wallet holding only one of them completes
// identify and age_verify with the business's claim names, the Photo ID's structured birth_date
// ({birth_date: full-date}) arrives as a plain date, and an issuer is trusted for them only once an operator says
// so (off by default, even for the sandbox IACA). Documents come from the sandbox mdoc issuer on demand; the
// wallet is the independent one (test/support/independent-wallet).
import { beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_ROUTE_ID } from '../../server/src/modules/catalog/catalog.seed';
import { MDOC_ID_PASS, MDOC_PHOTO_ID } from '../../server/src/modules/verification/mdoc/mdoc-query';
import { MdocTrustAnchorEntity } from '../../server/src/modules/verification/mdoc/mdoc-trust-anchor.entity';
import { annexCSuite } from '../support/annex-c-suite';
import type { Json } from '../support/harness';
import { AnnexCWallet, readAnnexCRequest } from '../support/independent-wallet/annex-c-wallet';

describe('Apple Digital ID and Google ID pass (mdoc doctypes)', () => {
  const s = annexCSuite('mdoc_doctypes');
  const { newSession, annexCRequest } = s;
  const wallets: Record<string, AnnexCWallet> = {};

  beforeAll(async () => {
    const { issuer, devicePrivateJwk } = s.state;
    for (const type of [MDOC_PHOTO_ID, MDOC_ID_PASS]) {
      const issuerSigned = await issuer.issueFor('adult', type.doctype, { status: null });
      wallets[type.doctype] = new AnnexCWallet([{ issuerSigned, devicePrivateJwk }]);
    }
  });

  async function present(workflow: 'identify' | 'age_verify', doctype: string) {
    const { id, signer } = await newSession(workflow);
    const { requestId, request } = await annexCRequest(signer);
    const answer = await (wallets[doctype] as AnnexCWallet).answer(request, s.state.origin);
    const res = await signer.submit(requestId, answer);
    return { id, request, res };
  }

  it('the requests ask for the Digital ID and the ID pass after the PID and the mDL', async () => {
    const { signer } = await newSession('identify');
    const { request } = await annexCRequest(signer);
    const read = readAnnexCRequest(request);
    expect(read.docRequests.map((d) => d.docType)).toEqual([
      'eu.europa.ec.eudi.pid.1',
      'org.iso.18013.5.1.mDL',
      'org.iso.23220.photoid.1',
      'com.google.wallet.idcard.1',
    ]);
    expect(read.docRequests[2]?.elements).toEqual([
      ['org.iso.23220.1', 'given_name'],
      ['org.iso.23220.1', 'family_name'],
      ['org.iso.23220.1', 'birth_date'],
      ['org.iso.23220.1', 'nationality'],
    ]);
    expect(read.docRequests[3]?.elements.map(([ns]) => ns)).toEqual(Array(4).fill('org.iso.18013.5.1'));
    const wr = (await signer.walletRequest()).body as Json;
    const ids = (wr.request as { dcql_query: { credentials: Json[] } }).dcql_query.credentials.map(
      (c) => c.id,
    );
    expect(ids).toEqual(['pid', 'pid_mdoc', 'mdl', 'photoid_mdoc', 'idpass_mdoc']);
  });

  it('off by default: a Digital ID under the sandbox IACA is refused until an operator trusts it for that doctype', async () => {
    for (const doctype of [MDOC_PHOTO_ID.doctype, MDOC_ID_PASS.doctype]) {
      const { res } = await present('identify', doctype);
      expect({ status: res.status, code: res.body.code }).toEqual({ status: 422, code: 'issuer_untrusted' });
    }
    // the operator trusts the (test) IACA for the two doctypes on the sandbox route
    const anchor = await s.state.t.svc.ds
      .getRepository(MdocTrustAnchorEntity)
      .findOneByOrFail({ environment: 'sandbox', doctype: 'org.iso.18013.5.1.mDL' });
    // loaded here, after the service (its X.509 library needs the reflect polyfill the service loads first)
    const { MdocTrustStore } = await import('../../server/src/modules/verification/mdoc/mdoc-trust');
    await new MdocTrustStore(s.state.t.svc.ds).register({
      environment: 'sandbox',
      routeId: SANDBOX_ROUTE_ID,
      doctypes: [MDOC_PHOTO_ID.doctype, MDOC_ID_PASS.doctype],
      name: 'Test IACA for the Digital ID and the ID pass',
      certificatePem: anchor.certificatePem,
      now: new Date(),
    });
  });

  for (const type of [MDOC_PHOTO_ID, MDOC_ID_PASS]) {
    it(`identify with ${type.doctype}: the business gets its claim names, birth_date as a date`, async () => {
      const { id, res } = await present('identify', type.doctype);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const session = await s.state.api.rest('GET', `/v1/sessions/${id}`);
      expect(session.body.results[0].claims).toEqual({
        given_name: 'Erika',
        family_name: 'Mustermann',
        birth_date: '1984-01-12',
        nationality: 'DE',
      });
      const audit = await s.state.api.rest('GET', `/v1/audits/${id}_0`);
      expect(JSON.stringify(audit.body)).toContain(`"${type.doctype}"`);
    });

    it(`age_verify with ${type.doctype}: age_over_18 of its namespace`, async () => {
      const { id, res } = await present('age_verify', type.doctype);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const session = await s.state.api.rest('GET', `/v1/sessions/${id}`);
      expect(session.body.results[0]).toMatchObject({ over: true, threshold: 18 });
    });
  }
});
