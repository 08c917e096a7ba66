// The signed wallet transports over real HTTP, as a wallet and an integrator observe them:
// - cross-device: the hosted transport hands out an openid4vp:// link (+ QR); a wallet GETs the signed request
//   object at request_uri, checks its signature against the x5c leaf and the chain to the verifier root,
//   answers with a direct_post.jwt response encrypted to the per-request key; the step completes and the
//   business receives its webhooks;
// - signed DC API: the same JAR profile handed to the page, answered with an encrypted dc_api.jwt response whose
//   key-binding audience is origin:<origin>;
// - refusals: used and expired request_uri, a response encrypted to another key, a plain vp_token on
//   direct_post.jwt, a wrong audience; none completes anything.
import { createHash, generateKeyPairSync, X509Certificate } from 'node:crypto';
import {
  base64url,
  compactVerify,
  decodeJwt,
  decodeProtectedHeader,
  exportJWK,
  importX509,
  type JWK,
} from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { encryptResponse, postResponse } from '../../server/src/modules/sandbox/signed-request-wallet';
import { StepResultEntity } from '../../server/src/modules/session/step-result.entity';
import { Api, type Json, type TestService } from '../support/harness';
import { expectNothingStored } from '../support/nothing-stored';
import { identifyFixture } from '../support/page-fixture';
import { SignerClient } from '../support/signer';
import { signatureValid, WebhookReceiver } from '../support/webhook-receiver';

const pem = (b64: string) => `-----BEGIN CERTIFICATE-----\n${b64}\n-----END CERTIFICATE-----`;

describe('cross-device and signed DC API transports', () => {
  const clock = new ManualClock();
  const receiver = new WebhookReceiver();
  const page = identifyFixture({ label: 'cross_device', clock, webhook: receiver });
  let t: TestService;
  let api: Api;
  let workflowId: string;
  let webhookSecret: string;
  beforeAll(() => ({ t, api, workflowId, webhookSecret } = page));

  async function startedSession() {
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    expect(created.status).toBe(201);
    const signer = new SignerClient(t.baseUrl, created.body.id);
    expect((await signer.start()).status).toBe(200);
    return { id: created.body.id as string, signer };
  }

  async function crossDeviceRequest(signer: SignerClient) {
    const res = await signer.call('POST', '/wallet-request/cross_device');
    expect(res.status).toBe(200);
    return res.body as Json;
  }

  /** Nothing of the refused step was stored (support/nothing-stored.ts). */
  const nothingCompleted = (id: string) => expectNothingStored(t, api, id, { status: 'in_progress' });

  it('completes an identify step cross-device: signed request_uri, encrypted direct_post.jwt, webhooks', async () => {
    const { id, signer } = await startedSession();
    const cd = await crossDeviceRequest(signer);
    expect(cd.protocol).toBe('openid4vp');
    expect(cd.qr_svg).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
    const link = new URL(cd.uri);
    expect(link.protocol).toBe('openid4vp:');
    const clientId = link.searchParams.get('client_id') as string;
    const requestUri = link.searchParams.get('request_uri') as string;
    expect(clientId).toMatch(/^x509_hash:[A-Za-z0-9_-]{43}$/);
    expect(requestUri).toBe(`${t.baseUrl}/oid4vp/requests/${cd.request_id}`);
    expect(cd.uri).not.toContain(id); // the session id (a capability) never reaches the wallet
    expect(JSON.stringify(cd)).not.toMatch(/"d":/); // no private key material for the page

    // What a wallet gets at request_uri, checked here with jose and @peculiar/x509 independently of our wallet.
    const got = await fetch(requestUri);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-type')).toMatch(/^application\/oauth-authz-req\+jwt/);
    const jar = await got.text();
    const header = decodeProtectedHeader(jar);
    expect(header).toMatchObject({ typ: 'oauth-authz-req+jwt', alg: 'ES256' });
    const x5c = header.x5c as string[];
    expect(x5c).toHaveLength(1); // the leaf; the root is not sent
    const { payload } = await compactVerify(jar, await importX509(pem(x5c[0] as string), 'ES256'));
    const req = JSON.parse(new TextDecoder().decode(payload)) as Json;
    expect(req).toMatchObject({
      response_type: 'vp_token',
      client_id: clientId,
      response_mode: 'direct_post.jwt',
      response_uri: `${t.baseUrl}/oid4vp/responses/${cd.request_id}`,
      aud: 'https://self-issued.me/v2',
      state: cd.request_id,
    });
    expect(req.nonce).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(req.exp).toBeGreaterThan(req.iat);
    const leafDer = Buffer.from(x5c[0] as string, 'base64');
    expect(clientId).toBe(`x509_hash:${base64url.encode(createHash('sha256').update(leafDer).digest())}`);
    const [jwk] = req.client_metadata.jwks.keys as JWK[];
    expect(jwk).toMatchObject({ kty: 'EC', crv: 'P-256', alg: 'ECDH-ES', use: 'enc' });
    expect(jwk?.kid).toEqual(expect.any(String));
    expect(jwk).not.toHaveProperty('d');
    expect(req.client_metadata.encrypted_response_enc_values_supported).toEqual(['A128GCM', 'A256GCM']);
    // the leaf chains to the published verifier root, is not self-signed, and names the hosted host
    const rootPem = await (await fetch(`${t.baseUrl}/oid4vp/verifier-root.pem`)).text();
    const root = new X509Certificate(rootPem);
    const leaf = new X509Certificate(leafDer);
    expect(leaf.checkIssued(root)).toBe(true);
    expect(leaf.verify(root.publicKey)).toBe(true);
    expect(leaf.checkIssued(leaf)).toBe(false); // not self-signed
    expect(leaf.ca).toBe(false);
    expect(leaf.subjectAltName).toBe('DNS:127.0.0.1');

    // The reference wallet does the whole exchange over HTTP (fetch, verify, present, encrypt, post).
    const answer = await t.svc.signedWallet.answerCrossDevice({ persona: 'adult', uri: cd.uri });
    // the response endpoint answers the same-device redirect back to the hosted page (ADR 0050)
    expect(answer).toEqual({
      status: 200,
      body: { redirect_uri: expect.stringMatching(/\/s\/[^/]+\/return#response_code=[\w-]{43}$/) },
    });

    // The hosted page sees the session done (it polls this projection), and the business is told.
    expect((await signer.session()).body.status).toBe('completed');
    const [step] = await receiver.waitFor('step.completed');
    const [done] = await receiver.waitFor('session.completed');
    expect(signatureValid(step, webhookSecret)).toBe(true);
    expect(signatureValid(done, webhookSecret)).toBe(true);
    expect(step.body.data).toMatchObject({
      session_id: id,
      stage: 0,
      primitive: 'identify',
      claims: { given_name: 'Erika', family_name: 'Mustermann', document_status: 'valid' },
    });
    const audit = await api.rest('GET', `/v1/audits/${id}_0`);
    expect(audit.status).toBe(200);
    expect(JSON.stringify(audit.body)).toContain('openid4vp-cross-device');
    expect(JSON.stringify(audit.body)).toContain(clientId);

    // The request is used: request_uri and response_uri refuse it now.
    const again = await fetch(requestUri);
    expect(again.status).toBe(422);
    expect(((await again.json()) as Json).code).toBe('request_not_found');
    const replay = await t.svc.signedWallet
      .answerCrossDevice({ persona: 'adult', uri: cd.uri })
      .catch((e) => e);
    expect(replay.code).toBe('request_not_found');
  });

  it('refuses a response encrypted to another key', async () => {
    const { id, signer } = await startedSession();
    const cd = await crossDeviceRequest(signer);
    const { payload } = await t.svc.signedWallet.fetchRequest(cd.uri);
    const presented = await t.svc.wallet.respond({ persona: 'adult', request: payload, origin: t.baseUrl });
    const ours = (payload.client_metadata as Json).jwks.keys[0] as JWK;
    const other = await exportJWK(generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey);
    // same kid and alg, another key: only the decryption can tell
    const jwe = await encryptResponse({ ...presented, state: payload.state }, payload, {
      jwk: { ...other, kid: ours.kid, alg: 'ECDH-ES' },
    });
    const res = await postResponse(payload.response_uri as string, { response: jwe });
    expect(res.status).toBe(422);
    expect((res.body as Json).code).toBe('response_decryption_failed');
    await nothingCompleted(id);
  });

  it('refuses a plain vp_token on direct_post.jwt', async () => {
    const { id, signer } = await startedSession();
    const cd = await crossDeviceRequest(signer);
    const { payload } = await t.svc.signedWallet.fetchRequest(cd.uri);
    const presented = await t.svc.wallet.respond({ persona: 'adult', request: payload, origin: t.baseUrl });
    const res = await postResponse(payload.response_uri as string, {
      vp_token: JSON.stringify(presented.vp_token),
      state: String(payload.state),
    });
    expect(res.status).toBe(422);
    expect((res.body as Json).code).toBe('response_not_encrypted');
    await nothingCompleted(id);
  });

  it('refuses a key binding made for another audience', async () => {
    const { id, signer } = await startedSession();
    const cd = await crossDeviceRequest(signer);
    // e.g. a wallet that treats a cross-device request like the DC API and binds to the origin
    const res = await t.svc.signedWallet.answerCrossDevice({
      persona: 'adult',
      uri: cd.uri,
      overrides: { aud: `origin:${t.baseUrl}` },
    });
    expect(res.status).toBe(422);
    expect((res.body as Json).code).toBe('audience_mismatch');
    await nothingCompleted(id);
  });

  it('refuses request_uri and response_uri once the step window has passed', async () => {
    const { id, signer } = await startedSession();
    const cd = await crossDeviceRequest(signer);
    const { payload } = await t.svc.signedWallet.fetchRequest(cd.uri);
    const presented = await t.svc.wallet.respond({ persona: 'adult', request: payload, origin: t.baseUrl });
    const jwe = await encryptResponse({ ...presented, state: payload.state }, payload);
    clock.advance(11 * 60_000); // identify's step window is 10 minutes
    const jar = await fetch(new URL(cd.uri).searchParams.get('request_uri') as string);
    expect(jar.status).toBe(410);
    expect(((await jar.json()) as Json).code).toBe('step_window_expired');
    // the session ended with its step window, so the wallet's late answer meets an expired session
    const res = await postResponse(payload.response_uri as string, { response: jwe });
    expect(res.status).toBe(410);
    expect((res.body as Json).code).toBe('session_expired');
    expect((await signer.session()).body.status).toBe('expired');
    expect(await t.svc.ds.getRepository(StepResultEntity).countBy({ sessionId: id })).toBe(0);
  });

  it('answers an unknown request id with request_not_found, and wants a form body', async () => {
    const unknown = await fetch(`${t.baseUrl}/oid4vp/requests/wreq_00000000000000000000000000`);
    expect(unknown.status).toBe(422);
    expect(((await unknown.json()) as Json).code).toBe('request_not_found');
    const json = await fetch(`${t.baseUrl}/oid4vp/responses/wreq_00000000000000000000000000`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ response: 'x' }),
    });
    expect(json.status).toBe(415);
  });

  it('completes a step over the signed DC API request (dc_api.jwt, audience origin:<origin>)', async () => {
    const { id, signer } = await startedSession();
    const res = await signer.call('POST', '/wallet-request/dc_api_signed');
    expect(res.status).toBe(200);
    expect(res.body.protocol).toBe('openid4vp-v1-signed');
    expect(Object.keys(res.body.request)).toEqual(['request']);
    expect(JSON.stringify(res.body)).not.toMatch(/"d":/);
    const claims = decodeJwt(res.body.request.request);
    expect(claims).toMatchObject({
      response_mode: 'dc_api.jwt',
      expected_origins: [t.baseUrl],
      client_id: expect.stringMatching(/^x509_hash:/),
    });
    expect(claims).not.toHaveProperty('state');
    expect(decodeProtectedHeader(res.body.request.request).typ).toBe('oauth-authz-req+jwt');

    // a wallet on another origin refuses the request (expected_origins)
    const elsewhere = await t.svc.signedWallet
      .answerSignedDcApi({ persona: 'adult', data: res.body.request, origin: 'https://evil.example' })
      .catch((e) => e);
    expect(elsewhere.code).toBe('validation_failed');

    // the client_id is not the audience over the DC API: refused, and the request is burned
    const wrongAud = await t.svc.signedWallet.answerSignedDcApi({
      persona: 'adult',
      data: res.body.request,
      origin: t.baseUrl,
      overrides: { aud: claims.client_id as string },
    });
    const refused = await signer.submit(res.body.request_id, wrongAud);
    expect(refused.status).toBe(422);
    expect(refused.body.code).toBe('audience_mismatch');
    await nothingCompleted(id);

    const fresh = await signer.call('POST', '/wallet-request/dc_api_signed');
    const answer = await t.svc.signedWallet.answerSignedDcApi({
      persona: 'adult',
      data: fresh.body.request,
      origin: t.baseUrl,
    });
    expect(Object.keys(answer)).toEqual(['response']);
    expect(answer.response.split('.')).toHaveLength(5);
    const ok = await signer.submit(fresh.body.request_id, answer);
    expect(ok.status).toBe(200);
    expect(ok.body.status).toBe('completed');
  });
});
