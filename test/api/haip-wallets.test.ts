// What HAIP 1.0 and the EU wallets ask of our requests (issue 26, ADR 0050), read over real HTTP by the
// independent wallet (test/support/independent-wallet: node:crypto, jose, its own CBOR and DER reading; nothing
// of the verifier): request_uri_method=post with wallet_metadata and wallet_nonce (signed, or encrypted to the
// wallet), DCQL trusted_authorities (aki) built from the route's IACAs and enforced on the answer, COSE -9 next
// to -7, both A128GCM and A256GCM, and the per-route leaf-only x5c.
import { createPrivateKey, X509Certificate as NodeX509, sign } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_ROUTE_ID } from '../../server/src/modules/catalog/catalog.seed';
import { SandboxCredentialEntity } from '../../server/src/modules/sandbox/sandbox-credential.entity';
import { loadSandboxKey } from '../../server/src/modules/sandbox/sandbox-issuer';
import { MDOC_AV, MDOC_MDL, MDOC_PID } from '../../server/src/modules/verification/mdoc/mdoc-query';
import { MdocTrustStore } from '../../server/src/modules/verification/mdoc/mdoc-trust';
import { annexCSuite } from '../support/annex-c-suite';
import type { Json, TestService } from '../support/harness';
import { AnnexCWallet, type HeldMdoc } from '../support/independent-wallet/annex-c-wallet';
import { decode, encode } from '../support/independent-wallet/cbor';
import { answerCrossDeviceMdoc, resolveRequest } from '../support/independent-wallet/cross-device';
import {
  akiOf,
  allowedByTrustedAuthorities,
  heldMdocChain,
  heldMdocDocType,
  jarX5c,
  postRequestUri,
  skiOf,
} from '../support/independent-wallet/haip';

describe('HAIP 1.0 and EU wallets: what the independent wallet reads in our requests', () => {
  const s = annexCSuite('haip_wallets');
  const { newSession, expectNothingStored } = s;
  let t: TestService;
  let origin: string;
  let wallet: AnnexCWallet;
  let held: HeldMdoc[];
  let rootPem: string;
  beforeAll(async () => {
    ({ t, origin, wallet, held } = s.state);
    rootPem = await (await fetch(`${t.baseUrl}/oid4vp/verifier-root.pem`)).text();
  });

  const crossDevice = async (signer: Awaited<ReturnType<typeof newSession>>['signer']) => {
    const cd = await signer.call('POST', '/wallet-request/cross_device');
    expect(cd.status).toBe(200);
    return cd.body.uri as string;
  };

  it('request_uri_method=post: the wallet POSTs its metadata and nonce, the signed object carries the nonce, the answer completes; GET still works', async () => {
    const { id, signer } = await newSession('identify');
    const uri = await crossDevice(signer);
    expect(new URL(uri).searchParams.get('request_uri_method')).toBe('post');
    const viaGet = await resolveRequest(uri, rootPem);
    expect(viaGet.wallet_nonce).toBeUndefined();
    const posted = await postRequestUri(uri, rootPem);
    expect(posted.status).toBe(200);
    expect(posted.contentType).toMatch(/^application\/oauth-authz-req\+jwt/);
    const claims = posted.claims as Json;
    expect(claims.wallet_nonce).toBe(posted.walletNonce);
    // the same request: what the answer is verified against did not change
    for (const k of [
      'client_id',
      'nonce',
      'state',
      'response_uri',
      'response_mode',
      'dcql_query',
      'client_metadata',
    ])
      expect(claims[k]).toEqual(viaGet[k]);
    const answered = await answerCrossDeviceMdoc({ request: claims, wallet });
    expect(answered.status).toBe(200);
    const read = await s.state.api.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.status).toBe('completed');
  });

  it('an encrypted request object when the wallet metadata asks for it (ECDH-ES, A256GCM, to the wallet key)', async () => {
    const { signer } = await newSession('identify');
    const uri = await crossDevice(signer);
    const posted = await postRequestUri(uri, rootPem, { encrypt: true });
    expect(posted.status).toBe(200);
    expect(posted.jweHeader).toMatchObject({
      alg: 'ECDH-ES',
      enc: 'A256GCM',
      cty: 'JWT',
      kid: 'wallet-enc-1',
    });
    expect((posted.claims as Json).wallet_nonce).toBe(posted.walletNonce);
  });

  it('malformed or unsatisfiable wallet_metadata is a stable 400 naming the field; a non-form body is 415', async () => {
    const { signer } = await newSession('identify');
    const uri = await crossDevice(signer);
    const cases: [Record<string, string>, string][] = [
      [{ wallet_metadata: '{not json', wallet_nonce: 'n1' }, 'wallet_metadata'],
      [{ wallet_metadata: '[1,2]' }, 'wallet_metadata'],
      [
        { wallet_metadata: JSON.stringify({ request_object_signing_alg_values_supported: ['RS256'] }) },
        'wallet_metadata.request_object_signing_alg_values_supported',
      ],
      [
        { wallet_metadata: JSON.stringify({ client_id_prefixes_supported: ['redirect_uri'] }) },
        'wallet_metadata.client_id_prefixes_supported',
      ],
      [
        {
          wallet_metadata: JSON.stringify({
            request_object_encryption_alg_values_supported: ['ECDH-ES'],
            jwks: { keys: [{ kty: 'RSA', n: 'AQAB', e: 'AQAB' }] },
          }),
        },
        'wallet_metadata.jwks',
      ],
      [{ wallet_nonce: 'x'.repeat(600) }, 'wallet_nonce'],
    ];
    for (const [form, param] of cases) {
      const res = await postRequestUri(uri, rootPem, { form });
      expect({ status: res.status, code: res.problem?.code, param: res.problem?.param }).toEqual({
        status: 400,
        code: 'wallet_metadata_invalid',
        param,
      });
    }
    const requestUri = new URL(uri).searchParams.get('request_uri') as string;
    const json = await fetch(requestUri, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(json.status).toBe(415);
    // and the request is still usable: a well-formed POST answers
    expect((await postRequestUri(uri, rootPem)).status).toBe(200);
  });

  it('every mdoc query carries trusted_authorities (aki) naming the route IACA, which the held documents match', async () => {
    const { signer } = await newSession('identify');
    const wr = await signer.walletRequest();
    const credentials = ((wr.body.request as Json).dcql_query as { credentials: Json[] }).credentials;
    const iacaDer = new Uint8Array(
      Buffer.from(
        ((await loadSandboxKey(t.svc.ds, 'issuer', 'sandbox-mdoc-iaca')).publicJwk as { x5c: string[] })
          .x5c[0] as string,
        'base64',
      ),
    );
    const iacaSki = skiOf(iacaDer) as string;
    expect(iacaSki).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    // Apple's Digital ID and Google's ID pass are asked for too, but no issuer is trusted for them until an
    // operator adds one (ADR 0049): no anchor, so no AKI to name
    const untrustedDocTypes = ['org.iso.23220.photoid.1', 'com.google.wallet.idcard.1'];
    for (const q of credentials) {
      if (q.format === 'mso_mdoc' && untrustedDocTypes.includes((q.meta as Json).doctype_value as string)) {
        expect(q.trusted_authorities).toBeUndefined();
      } else if (q.format === 'mso_mdoc') {
        expect(q.trusted_authorities).toEqual([{ type: 'aki', values: [iacaSki] }]);
        const doc = held.find((h) => heldMdocDocType(h) === (q.meta as Json).doctype_value);
        expect(doc).toBeDefined();
        const chain = heldMdocChain(doc as HeldMdoc);
        expect(akiOf(chain[0] as Uint8Array)).toBe(iacaSki);
        expect(allowedByTrustedAuthorities(q, chain)).toBe(true);
      } else {
        // the sandbox SD-JWT VC issuer is trusted by key only: no chain, so no AKI to name (ADR 0050)
        expect(q.trusted_authorities).toBeUndefined();
      }
    }
    expect(credentials.some((q) => q.format === 'mso_mdoc')).toBe(true);
  });

  it('COSE -9 (ESP256) is offered and accepted for the device signature and the issuer signature; A256GCM is accepted', async () => {
    const dcApi = await newSession('identify');
    const wr = await dcApi.signer.walletRequest();
    const request = wr.body.request as Json;
    const formats = (request.client_metadata as Json).vp_formats_supported as Json;
    expect(formats.mso_mdoc).toMatchObject({
      issuerauth_alg_values: expect.arrayContaining([-7, -9]),
      deviceauth_alg_values: expect.arrayContaining([-7, -9]),
    });
    const answer = wallet.answerOpenId4VpDcApi(request, origin, { deviceAlg: -9 });
    expect((await dcApi.signer.submit(wr.body.request_id, answer)).body.status).toBe('completed');

    // the issuer signature over the MSO re-made with alg -9 by the document signer's key (node:crypto)
    const ds = await loadSandboxKey(t.svc.ds, 'issuer', 'sandbox-mdoc-ds');
    const resigned = held.map((h) => ({
      ...h,
      issuerSigned: resignIssuerAuth(h.issuerSigned, ds.privateJwk, -9),
    }));
    const other = await newSession('identify');
    const wr2 = await other.signer.walletRequest();
    const answer2 = new AnnexCWallet(resigned).answerOpenId4VpDcApi(wr2.body.request as Json, origin);
    expect((await other.signer.submit(wr2.body.request_id, answer2)).body.status).toBe('completed');

    // an algorithm we do not accept (-36, ES512, over a P-256 signature) is refused, nothing stored
    const third = await newSession('identify');
    const wr3 = await third.signer.walletRequest();
    const bad = new AnnexCWallet(
      held.map((h) => ({ ...h, issuerSigned: resignIssuerAuth(h.issuerSigned, ds.privateJwk, -36) })),
    );
    const refused = await third.signer.submit(
      wr3.body.request_id,
      bad.answerOpenId4VpDcApi(wr3.body.request as Json, origin),
    );
    expect(refused.status).toBe(422);
    await expectNothingStored(third.id);

    // cross-device: both A128GCM and A256GCM are offered, and an A256GCM response completes
    const cd = await newSession('identify');
    const claims = await resolveRequest(await crossDevice(cd.signer), rootPem);
    expect((claims.client_metadata as Json).encrypted_response_enc_values_supported).toEqual([
      'A128GCM',
      'A256GCM',
    ]);
    expect((await answerCrossDeviceMdoc({ request: claims, wallet, enc: 'A256GCM' })).status).toBe(200);
  });

  it('a route with x5c_leaf_only: the request object carries only the leaf (GET and POST), which still verifies', async () => {
    const before = await newSession('identify');
    const full = jarX5c(await (await fetch(requestUriOf(await crossDevice(before.signer)))).text());
    await t.svc.catalog.setX5cLeafOnly(SANDBOX_ROUTE_ID, true);
    try {
      const { signer } = await newSession('identify');
      const uri = await crossDevice(signer);
      const jar = await (await fetch(requestUriOf(uri))).text();
      const x5c = jarX5c(jar);
      expect(x5c).toEqual([full[0]]);
      // a wallet that holds the rest of the chain verifies the leaf: signed by the next certificate (or the root)
      const leaf = new NodeX509(Buffer.from(x5c[0] as string, 'base64'));
      const issuer = full[1] ? new NodeX509(Buffer.from(full[1], 'base64')) : new NodeX509(rootPem);
      expect(leaf.verify(issuer.publicKey)).toBe(true);
      const raw = await fetch(requestUriOf(uri), {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'wallet_nonce=abc',
      });
      expect(jarX5c(await raw.text())).toEqual([full[0]]);
    } finally {
      await t.svc.catalog.setX5cLeafOnly(SANDBOX_ROUTE_ID, false);
    }
  });

  it('an answer whose issuer chain is outside the request’s trusted_authorities is refused (issuer_untrusted)', async () => {
    // the request is made while only the sandbox IACA is trusted ...
    const { id, signer } = await newSession('identify');
    const wr = await signer.walletRequest();
    const request = wr.body.request as Json;
    // ... then the operator trusts a second IACA on the route: its documents chain to a trusted anchor now,
    // but not to one this request named
    const untrustedIaca = (
      (await loadSandboxKey(t.svc.ds, 'issuer', 'sandbox-mdoc-untrusted-iaca')).publicJwk as {
        x5c: string[];
      }
    ).x5c[0] as string;
    await new MdocTrustStore(t.svc.ds).register({
      environment: 'sandbox',
      routeId: SANDBOX_ROUTE_ID,
      doctypes: [MDOC_PID.doctype, MDOC_MDL.doctype, MDOC_AV.doctype],
      name: 'second IACA (test)',
      certificatePem: new NodeX509(Buffer.from(untrustedIaca, 'base64')).toString(),
      now: new Date(),
    });
    const key = (await loadSandboxKey(t.svc.ds, 'holder', 'unknown_issuer')).privateJwk as JsonWebKey;
    const rows = await t.svc.ds
      .getRepository(SandboxCredentialEntity)
      .findBy({ persona: 'unknown_issuer', format: 'mso_mdoc' });
    const other = new AnnexCWallet(rows.map((r) => ({ issuerSigned: r.credential, devicePrivateJwk: key })));
    const pidQuery = ((request.dcql_query as { credentials: Json[] }).credentials.find(
      (q) => (q.meta as Json | undefined)?.doctype_value === MDOC_PID.doctype,
    ) ?? {}) as Json;
    const otherPid = rows.map((r) => ({ issuerSigned: r.credential, devicePrivateJwk: key }));
    const chain = heldMdocChain(otherPid.find((h) => heldMdocDocType(h) === MDOC_PID.doctype) as HeldMdoc);
    // a wallet that filters would not offer it; this one answers anyway
    expect(allowedByTrustedAuthorities(pidQuery, chain)).toBe(false);
    const res = await signer.submit(wr.body.request_id, other.answerOpenId4VpDcApi(request, origin));
    expect({ status: res.status, code: res.body.code }).toEqual({ status: 422, code: 'issuer_untrusted' });
    expect(String(res.body.detail)).toContain('trusted_authorities');
    await expectNothingStored(id);
    // a request made now names both IACAs, and the same documents complete
    const again = await newSession('identify');
    const wr2 = await again.signer.walletRequest();
    const q2 = ((wr2.body.request as Json).dcql_query as { credentials: Json[] }).credentials.find(
      (q) => q.format === 'mso_mdoc',
    ) as Json;
    expect((q2.trusted_authorities as { values: string[] }[])[0]?.values).toHaveLength(2);
    const ok = await again.signer.submit(
      wr2.body.request_id,
      other.answerOpenId4VpDcApi(wr2.body.request as Json, origin),
    );
    expect(ok.body.status).toBe('completed');
  });
});

const requestUriOf = (uri: string): string => new URL(uri).searchParams.get('request_uri') as string;

/** IssuerSigned with issuerAuth re-signed by `privateJwk` under COSE alg `alg` (node:crypto ECDSA P-256). */
function resignIssuerAuth(issuerSignedB64u: string, privateJwk: unknown, alg: number): string {
  const issuerSigned = decode(new Uint8Array(Buffer.from(issuerSignedB64u, 'base64url'))) as Map<
    string,
    unknown
  >;
  const [, unprotected, payload] = issuerSigned.get('issuerAuth') as [
    Uint8Array,
    unknown,
    Uint8Array,
    Uint8Array,
  ];
  const protectedHeader = encode(new Map([[1, alg]]));
  const toBeSigned = encode(['Signature1', protectedHeader, new Uint8Array(), payload]);
  const key = createPrivateKey({ key: privateJwk as never, format: 'jwk' });
  const signature = new Uint8Array(sign('sha256', toBeSigned, { key, dsaEncoding: 'ieee-p1363' }));
  issuerSigned.set('issuerAuth', [protectedHeader, unprotected, payload, signature]);
  return Buffer.from(encode(issuerSigned)).toString('base64url');
}
