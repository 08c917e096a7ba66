// Registration certificates imported by the operator (issue 19, ADR 0040), as the operator and a wallet observe
// them: `pnpm operator registration-cert import` refuses, each with its stable code, a wrong typ, a signature
// not under the configured registrar anchor (another CA; a changed payload), an expired one, one bound to
// another client_id and one naming another business; a good one is stored and audited, and with
// VERIFIER_INFO_PRODUCTION on, the business's production request object carries it in verifier_info (another
// business's does not); `revoke` removes it from the next request. And the sandbox wallet's read route: what
// it shows for a request, and a request whose verifier_info belongs to someone else refused
// (verifier_info_mismatch).
import { createPrivateKey, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { decodeJwt, decodeProtectedHeader, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { AppError } from '../../server/src/common/errors';
import { AccountAuditEntity } from '../../server/src/modules/accounts/accounts.entities';
import { runOperator } from '../support/dashboard';
import {
  Api,
  createBusiness,
  type Json,
  setUpIdentifyWorkflow,
  startTestService,
  type TestService,
} from '../support/harness';
import { SignerClient } from '../support/signer';
import { makeTestCa, type TestCa } from '../support/test-ca';

const der = (pem: string) => pem.replace(/-----(BEGIN|END) CERTIFICATE-----|\s+/g, '');

describe('registration certificates imported by the operator', () => {
  const clock = new ManualClock();
  let t: TestService;
  let registrar: TestCa;
  let other: TestCa;
  let env: Record<string, string>;
  const biz: Record<
    'A' | 'B',
    { id: string; prod: Api; workflowId: string; sandbox: Api; sbWorkflow: string }
  > = {} as never;
  let intKey: KeyObject;

  const op = async (...args: string[]) => {
    const out = await runOperator([...args, '--operator', 'ops-dana'], env);
    return { ...out, json: out.code === 0 ? (JSON.parse(out.stdout) as unknown) : undefined };
  };
  /** A production request object of business k (cross-device, read at its request_uri). */
  async function productionRequest(k: 'A' | 'B', environment: 'production' | 'sandbox' = 'production') {
    const api = environment === 'production' ? biz[k].prod : biz[k].sandbox;
    const workflowId = environment === 'production' ? biz[k].workflowId : biz[k].sbWorkflow;
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    expect(created.status).toBe(201);
    const signer = new SignerClient(t.baseUrl, created.body.id);
    expect((await signer.start()).status).toBe(200);
    const cd = (await signer.call('POST', '/wallet-request/cross_device')).body as Json;
    const jar = await (await fetch(new URL(cd.uri).searchParams.get('request_uri') as string)).text();
    return { signer, jar, payload: decodeJwt(jar) as Json };
  }
  /** The claims ETSI TS 119 475 v1.2.1 requires besides sub, name, iat and exp. */
  const V121 = {
    country: 'DE',
    registry_uri: 'https://registry.example/wrp',
    entitlements: ['https://uri.etsi.org/19475/Entitlement/Service_Provider'],
  };
  const clientIdOf = async (k: 'A' | 'B') => (await productionRequest(k)).payload.client_id as string;
  /** A registration certificate signed by the registrar CA's intermediate (x5c = [intermediate]). */
  const rc = (claims: Json, opts: { typ?: string; key?: KeyObject; x5c?: string[] } = {}) =>
    new SignJWT(claims)
      .setProtectedHeader({
        alg: 'ES256',
        typ: opts.typ ?? 'rc-wrp+jwt',
        x5c: opts.x5c ?? [der(registrar.intermediatePem)],
      })
      .sign(opts.key ?? intKey);
  const now = () => Math.floor(clock.now().getTime() / 1000);
  const refusal = async (k: 'A' | 'B', jwt: string) =>
    t.svc.registrationCerts
      .import(biz[k].id, 'production', jwt, async () => {})
      .then(
        () => 'imported',
        (e: unknown) => (e instanceof AppError ? e.code : String(e)),
      );

  beforeAll(async () => {
    registrar = makeTestCa('Test Registrar CA');
    other = makeTestCa('Untrusted Registrar');
    intKey = createPrivateKey(fs.readFileSync(path.join(registrar.dir, 'int.key')));
    const anchors = path.join(registrar.dir, 'anchors.pem');
    fs.writeFileSync(anchors, registrar.rootPem);
    clock.set(Date.now());
    t = await startTestService({
      label: 'registration_certs',
      clock,
      workers: false,
      env: { REGISTRATION_CERT_ANCHORS_FILE: anchors, VERIFIER_INFO_PRODUCTION: 'true' },
    });
    env = {
      ...(t.db.url ? { DATABASE_URL: t.db.url } : {}),
      DATA_DIR: t.svc.config.dataDir,
      BASE_URL: t.baseUrl,
      REGISTRATION_CERT_ANCHORS_FILE: anchors,
    };
    await t.svc.catalog.setAcceptance('rte_google_us_mdl', { provider: true, issuer: true, service: true });
    for (const k of ['A', 'B'] as const) {
      const created = await createBusiness(t, k === 'A' ? 'Acme Lending' : 'Beta Bank');
      const prod = new Api(
        t.baseUrl,
        (await t.svc.tenancy.issueApiKey(created.businessId, 'production')).key,
      );
      const sandbox = new Api(t.baseUrl, created.apiKey);
      const { workflowId } = await setUpIdentifyWorkflow(prod, 'https://8.8.8.8/hooks');
      const { workflowId: sbWorkflow } = await setUpIdentifyWorkflow(
        sandbox,
        `${t.baseUrl}/dev/webhook-receiver`,
      );
      biz[k] = { id: created.businessId, prod, workflowId, sandbox, sbWorkflow };
    }
  }, 300_000);
  afterAll(async () => {
    await t?.stop();
    registrar?.remove();
    other?.remove();
  });

  it('refuses at import, each with its code, what a wallet must not be shown', async () => {
    const sub = await clientIdOf('A');
    const good = { sub, name: 'Acme Lending', ...V121, iat: now(), exp: now() + 86_400 };
    expect(await refusal('A', 'not a jwt')).toBe('registration_cert_invalid');
    expect(await refusal('A', await rc(good, { typ: 'JWT' }))).toBe('registration_cert_typ');
    // signed by a CA the operator did not configure
    const otherKey = createPrivateKey(fs.readFileSync(path.join(other.dir, 'int.key')));
    expect(await refusal('A', await rc(good, { key: otherKey, x5c: [der(other.intermediatePem)] }))).toBe(
      'registration_cert_untrusted',
    );
    // x5c names the trusted intermediate but another key signed it
    expect(await refusal('A', await rc(good, { key: otherKey }))).toBe('registration_cert_untrusted');
    // a changed payload under the original signature
    const [h, , s] = (await rc(good)).split('.');
    const changed = Buffer.from(JSON.stringify({ ...good, name: 'Beta Bank' })).toString('base64url');
    expect(await refusal('A', `${h}.${changed}.${s}`)).toBe('registration_cert_untrusted');
    expect(await refusal('A', await rc({ ...good, exp: now() - 1 }))).toBe('registration_cert_expired');
    expect(await refusal('A', await rc({ ...good, exp: undefined }))).toBe('registration_cert_expired');
    expect(await refusal('A', await rc({ ...good, sub: 'x509_hash:c29tZW9uZSBlbHNl' }))).toBe(
      'registration_cert_client_mismatch',
    );
    // the claims a TS 119 475 v1.2.1 wallet requires: the wallet refuses without them, so the import does too
    expect(await refusal('A', await rc({ ...good, country: undefined }))).toBe('registration_cert_invalid');
    expect(await refusal('A', await rc({ ...good, entitlements: [] }))).toBe('registration_cert_invalid');
    expect(await refusal('A', await rc({ ...good, name: 'Beta Bank' }))).toBe(
      'registration_cert_business_mismatch',
    );
    expect(await t.svc.registrationCerts.list()).toEqual([]);
  }, 300_000);

  it('imports a good one with the CLI (audited); production requests carry it; revoke removes it', async () => {
    const before = await productionRequest('A');
    expect(before.payload.verifier_info).toBeUndefined(); // nothing imported: no verifier_info
    const jwt = await rc({
      sub: before.payload.client_id,
      name: 'Acme Lending',
      ...V121,
      purpose: [{ lang: 'en', value: 'Loan application' }],
      iat: now(),
      exp: now() + 86_400,
    });
    const file = path.join(registrar.dir, 'acme.rc.jwt');
    fs.writeFileSync(file, `${jwt}\n`);
    const imported = await op(
      'registration-cert',
      'import',
      '--business',
      biz.A.id,
      '--env',
      'production',
      file,
    );
    expect(imported.code, imported.stderr).toBe(0);
    expect(imported.json).toMatchObject({
      business_id: biz.A.id,
      environment: 'production',
      name: 'Acme Lending',
    });
    const bad = await op('registration-cert', 'import', '--business', biz.B.id, '--env', 'production', file);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/name or sub_ln must be one of: Beta Bank/); // B's requests share the client_id

    const a = await productionRequest('A');
    expect(a.payload.verifier_info).toEqual([{ format: 'jwt', data: jwt }]);
    expect(decodeProtectedHeader((a.payload.verifier_info as Json[])[0]?.data as string).typ).toBe(
      'rc-wrp+jwt',
    );
    expect((await productionRequest('B')).payload.verifier_info).toBeUndefined();

    const listed = await op('registration-cert', 'list', '--business', biz.A.id);
    expect(listed.json).toEqual([expect.objectContaining({ sub: a.payload.client_id, revoked_at: null })]);
    const revoked = await op('registration-cert', 'revoke', '--business', biz.A.id, '--env', 'production');
    expect(revoked.code, revoked.stderr).toBe(0);
    expect((await productionRequest('A')).payload.verifier_info).toBeUndefined();
    const again = await op('registration-cert', 'revoke', '--business', biz.A.id, '--env', 'production');
    expect(again.code).not.toBe(0);

    const audit = await t.svc.ds.getRepository(AccountAuditEntity).findBy({ businessId: biz.A.id });
    expect(audit.map((r) => [r.action, r.actorId])).toEqual(
      expect.arrayContaining([
        ['registration_cert.import', 'ops-dana'],
        ['registration_cert.revoke', 'ops-dana'],
      ]),
    );
  }, 600_000);

  it("the sandbox wallet shows the request's relying party, and refuses B's certificate on A's request", async () => {
    await t.svc.verifierIdentity.registrar.rotateCa(); // registrar mode: sandbox requests carry verifier_info
    await biz.A.sandbox.gql(
      'mutation($i: RelyingPartyInput!) { setRelyingParty(input: $i) { displayName } }',
      { i: { displayName: 'Acme Lending', purpose: 'Check your age before a loan offer' } },
    );
    const signedOf = async (k: 'A' | 'B') => {
      const created = await biz[k].sandbox.rest('POST', '/v1/sessions', { workflow_id: biz[k].sbWorkflow });
      const signer = new SignerClient(t.baseUrl, created.body.id);
      await signer.start();
      return (await signer.call('POST', '/wallet-request/dc_api_signed')).body as Json;
    };
    const read = (request: unknown) =>
      fetch(`${t.baseUrl}/sandbox/wallet/read`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ request, origin: new URL(t.baseUrl).origin }),
      });
    const a = await signedOf('A');
    const b = await signedOf('B');
    const shown = await read(a.request);
    expect(shown.status).toBe(200);
    expect(await shown.json()).toEqual({
      relying_party: {
        name: 'Acme Lending',
        purpose: 'Check your age before a loan offer',
        via: 'Credential verification service',
      },
      intermediary: new URL(t.baseUrl).hostname,
      claims: expect.arrayContaining(['given_name']),
      documents: [],
      terms: null,
    });
    // A's own signer sends a request carrying B's registration certificate
    const jarA = (a.request as Json).request as string;
    const payloadB = decodeJwt((b.request as Json).request as string);
    const identity = await t.svc.verifierIdentity.forBusiness({ id: biz.A.id, environment: 'sandbox' });
    const tampered = await identity.sign(decodeProtectedHeader(jarA) as Json, {
      ...decodeJwt(jarA),
      verifier_info: payloadB.verifier_info,
    });
    const refused = await read({ request: tampered });
    expect(refused.status).toBe(422);
    expect(await refused.json()).toMatchObject({ code: 'verifier_info_mismatch' });

    // an imported sandbox certificate follows the wallet's rule: A's registrar leaf names A by its
    // organizationIdentifier, so a sub of the client_id is refused at import, and the leaf's identifier is taken
    // and then shown by the wallet instead of the registrar-issued one
    const leafSub = decodeJwt((decodeJwt(jarA).verifier_info as Json[])[0]?.data as string).sub as string;
    const claims = { name: 'Acme Lending', ...V121, iat: now(), exp: now() + 86_400 };
    const audit = async () => {};
    await expect(
      t.svc.registrationCerts.import(
        biz.A.id,
        'sandbox',
        await rc({ ...claims, sub: decodeJwt(jarA).client_id }),
        audit,
      ),
    ).rejects.toMatchObject({ code: 'registration_cert_client_mismatch' });
    const purpose = [{ lang: 'en', value: 'Imported purpose' }];
    await t.svc.registrationCerts.import(
      biz.A.id,
      'sandbox',
      await rc({ ...claims, sub: leafSub, purpose }),
      audit,
    );
    const again = await read((await signedOf('A')).request);
    expect(again.status).toBe(200);
    expect(await again.json()).toMatchObject({
      relying_party: { name: 'Acme Lending', purpose: 'Imported purpose' },
    });
  }, 300_000);
});
