// How the service speaks for a business per route and environment (issue 26, ADR 0053), read as a wallet reads
// it, with jose and openssl (nothing of our builder): in `intermediary` mode the request is signed under our
// access certificate (the service's leaf, not the business's), `client_id` is the x509_hash of that leaf, and
// `verifier_info` carries the business's registration certificate naming us as the intermediary; the sandbox
// wallet's consent screen shows both names. In `business-certificate` mode the request is signed under the
// business's own access certificate (CSR from the operator CLI, issued by an openssl CA, imported with the
// access-certificate checks), chains to that CA with `openssl verify`, and carries no verifier_info; before the
// import, the request is refused with business_certificate_missing (409), never a 5xx.
import { createHash, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { compactVerify, decodeJwt, decodeProtectedHeader, importX509 } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { AccountAuditEntity } from '../../server/src/modules/accounts/accounts.entities';
import { setSpeaking, speakingFor } from '../../server/src/modules/relying-party/speaking';
import { allowedRoutes } from '../../server/src/modules/workflow/route-scope';
import { runOperator } from '../support/dashboard';
import { Api, type Json, startTestService, type TestService } from '../support/harness';
import { DEV_RECEIVER, identifyBusiness } from '../support/page-fixture';
import { SignerClient } from '../support/signer';
import { makeTestCa, pemOf, type TestCa } from '../support/test-ca';

/** What a wallet checks of a signed request object: the x5c leaf's signature and the x509_hash client_id. */
async function readAsWallet(jar: string) {
  const header = decodeProtectedHeader(jar);
  const x5c = header.x5c as string[];
  const leafPem = pemOf([x5c[0] as string]);
  const { payload } = await compactVerify(jar, await importX509(leafPem, 'ES256'));
  const claims = JSON.parse(new TextDecoder().decode(payload)) as Json;
  const leafDer = Buffer.from(x5c[0] as string, 'base64');
  expect(claims.client_id).toBe(`x509_hash:${createHash('sha256').update(leafDer).digest('base64url')}`);
  return { claims, x5c, leaf: new X509Certificate(leafDer) };
}

describe('speaking for a business: intermediary or its own access certificate, per route and environment', () => {
  const clock = new ManualClock();
  let t: TestService;
  let ca: TestCa;
  let api: Api;
  let workflowId: string;
  let businessId: string;
  let route: string;
  let env: Record<string, string>;

  const op = async (...args: string[]) => {
    const out = await runOperator([...args, '--operator', 'ops-dana'], env);
    return { ...out, json: out.code === 0 ? (JSON.parse(out.stdout) as Json) : undefined };
  };
  async function signedRequest(kind: 'dc_api_signed' | 'cross_device') {
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    expect(created.status).toBe(201);
    const signer = new SignerClient(t.baseUrl, created.body.id);
    expect((await signer.start()).status).toBe(200);
    return signer.call('POST', `/wallet-request/${kind}`);
  }
  const read = (request: unknown) =>
    fetch(`${t.baseUrl}/sandbox/wallet/read`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ request, origin: new URL(t.baseUrl).origin }),
    });

  beforeAll(async () => {
    clock.set(Date.now());
    t = await startTestService({ label: 'speaking_modes', clock, workers: false });
    env = {
      ...(t.db.url ? { DATABASE_URL: t.db.url } : {}),
      DATA_DIR: t.svc.config.dataDir,
      BASE_URL: t.baseUrl,
    };
    ca = makeTestCa('Acme Access CA');
    ({ businessId, api, workflowId } = await identifyBusiness(t, {
      businessName: 'Acme Lending',
      webhook: DEV_RECEIVER,
    }));
    await api.gql('mutation($i: RelyingPartyInput!) { setRelyingParty(input: $i) { displayName } }', {
      i: { displayName: 'Acme Lending', purpose: 'Check who you are before a loan offer' },
    });
    // registrar mode on: by default each business signs under its own registrar leaf (ADR 0034)
    await t.svc.verifierIdentity.registrar.rotateCa();
    route = (await allowedRoutes(t.svc.ds, { primitive: 'identify' }, 'sandbox'))[0] as string;
  }, 300_000);
  afterAll(async () => {
    await t?.stop();
    ca?.remove();
  });

  it('intermediary: our certificate signs, the business is in verifier_info, the wallet shows both names', async () => {
    const before = await readAsWallet(
      ((await signedRequest('dc_api_signed')).body.request as Json).request as string,
    );
    expect(before.leaf.subject).toContain('Acme Lending'); // the default in registrar mode: the business's leaf

    const set = await op('set-route', '--route', route, '--env', 'sandbox', '--speaking', 'intermediary');
    expect(set.code, set.stderr).toBe(0);
    expect(set.json).toEqual({ route, environment: 'sandbox', speaking: 'intermediary' });
    // per environment: production keeps its default
    expect(await speakingFor(t.svc.ds, [route], 'sandbox')).toBe('intermediary');
    expect(await speakingFor(t.svc.ds, [route], 'production')).toBeUndefined();
    const bad = await op('set-route', '--route', route, '--env', 'sandbox', '--speaking', 'loud');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('validation_failed');

    const res = await signedRequest('dc_api_signed');
    expect(res.status).toBe(200);
    const { claims, leaf } = await readAsWallet((res.body.request as Json).request as string);
    const host = new URL(t.baseUrl).hostname;
    expect(leaf.subject).toContain(`CN=${host}`);
    expect(leaf.subject).toContain('O=Credential verification service');
    expect(leaf.subject).not.toContain('Acme');
    const rc = decodeJwt((claims.verifier_info as Json[])[0]?.data as string) as Json;
    expect(rc.name).toBe('Acme Lending');
    expect(rc.intermediary).toEqual({ sub: claims.client_id, sname: 'Credential verification service' });

    const shown = await read(res.body.request);
    expect(shown.status).toBe(200);
    expect(await shown.json()).toMatchObject({
      relying_party: {
        name: 'Acme Lending',
        purpose: 'Check who you are before a loan offer',
        via: 'Credential verification service',
      },
      intermediary: host,
    });

    const audit = await t.svc.ds.getRepository(AccountAuditEntity).findBy({ action: 'route.speaking' });
    expect(audit.map((r) => [r.actorId, r.target, JSON.parse(r.detail ?? '{}')])).toEqual([
      ['ops-dana', route, { environment: 'sandbox', speaking: 'intermediary' }],
    ]);
  }, 300_000);

  it('business-certificate: refused with a stable code until imported, then signed under the business chain', async () => {
    await setSpeaking(
      t.svc.ds,
      clock,
      { route, environment: 'sandbox', mode: 'business-certificate' },
      async () => {},
    );
    const missing = await signedRequest('dc_api_signed');
    expect(missing.status).toBe(409);
    expect(missing.body).toMatchObject({ code: 'business_certificate_missing' });

    const csr = await op('business-cert', 'csr', '--business', businessId, '--env', 'sandbox');
    expect(csr.code, csr.stderr).toBe(0);
    const dir = ca.dir;
    // a leaf for a key that is not the business's is refused with the access-certificate code
    const foreign = ca.issue(ca.foreignCsr('Somebody Else'));
    fs.writeFileSync(path.join(dir, 'foreign-chain.pem'), foreign + ca.intermediatePem + ca.rootPem);
    const refused = await op(
      'business-cert',
      'import',
      '--business',
      businessId,
      '--env',
      'sandbox',
      '--pem',
      path.join(dir, 'foreign-chain.pem'),
    );
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('access_chain_key_mismatch');

    const leafPem = ca.issue(String(csr.json?.pem), { san: 'DNS:acme.example' });
    fs.writeFileSync(path.join(dir, 'acme-chain.pem'), leafPem + ca.intermediatePem + ca.rootPem);
    const imported = await op(
      'business-cert',
      'import',
      '--business',
      businessId,
      '--env',
      'sandbox',
      '--pem',
      path.join(dir, 'acme-chain.pem'),
    );
    expect(imported.code, imported.stderr).toBe(0);
    clock.set(Date.now()); // the service's clock reaches the leaf's notBefore (openssl: the CLI's real now)

    for (const kind of ['dc_api_signed', 'cross_device'] as const) {
      const res = await signedRequest(kind);
      expect(res.status).toBe(200);
      const jar =
        kind === 'dc_api_signed'
          ? ((res.body.request as Json).request as string)
          : await (
              await fetch(new URL(res.body.uri as string).searchParams.get('request_uri') as string)
            ).text();
      const { claims, x5c, leaf } = await readAsWallet(jar);
      expect(leaf.subject).toBe('CN=Acme Lending');
      expect(claims.verifier_info).toBeUndefined();
      expect(ca.verify(pemOf([x5c[0] as string]), pemOf(x5c.slice(1)))).toContain('OK');
      if (kind === 'cross_device') {
        // request_uri_method=post signs again under the same certificate
        const posted = await fetch(
          new URL(res.body.uri as string).searchParams.get('request_uri') as string,
          {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ wallet_nonce: 'n-1' }).toString(),
          },
        );
        expect(posted.status).toBe(200);
        const again = await readAsWallet(await posted.text());
        expect(again.claims).toMatchObject({ client_id: claims.client_id, wallet_nonce: 'n-1' });
      }
    }
    const audit = await t.svc.ds.getRepository(AccountAuditEntity).findBy({ businessId });
    expect(audit.map((r) => r.action)).toContain('business_cert.import');
  }, 300_000);
});
