// The business as the relying party (issue 19, ADR 0035) as an integrator and a wallet observe it: owners and
// admins set legal name, display name, contact, privacy policy and purpose per environment (a developer or a
// viewer is refused, bad input gets validation_failed naming the field, every change is in account_audit); the
// registrar leaf's metadata names the display name and privacy policy; and a sandbox request carries
// `verifier_info` with a registration certificate (rc-wrp+jwt) by the registrar for that business, which the
// reference wallet checks and refuses when it names another client_id.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { AccountAuditEntity } from '../../server/src/modules/accounts/accounts.entities';
import { extensionDigest } from '../../server/src/modules/relying-party/registrar';
import { verifyRequestObject } from '../../server/src/modules/sandbox/signed-request-wallet';
import { cborEncode, Tagged } from '../support/cbor-encode';
import {
  Api,
  type DashboardCredentials,
  type Json,
  startTestService,
  type TestService,
} from '../support/harness';
import { DEV_RECEIVER, identifyBusiness } from '../support/page-fixture';
import { registrationClaims, signedRequestOf } from '../support/signed-request';

const SET =
  'mutation($i: RelyingPartyInput!) { setRelyingParty(input: $i) { legalName displayName contactEmail privacyPolicyUrl purpose } }';
const GET = '{ relyingParty { legalName displayName contactEmail privacyPolicyUrl purpose } }';

describe('the business as the relying party', () => {
  const clock = new ManualClock();
  let t: TestService;
  const biz: Record<'A' | 'B', { id: string; api: Api; workflowId: string }> = {} as never;
  const rp = {
    A: {
      legalName: 'Acme Lending GmbH',
      displayName: 'Acme Lending',
      contactEmail: 'privacy@acme.example',
      privacyPolicyUrl: 'https://acme.example/privacy',
      purpose: 'Check your age before a loan offer',
    },
    B: {
      legalName: 'Beta Bank AG',
      displayName: 'Beta Bank',
      contactEmail: 'dpo@beta.example',
      privacyPolicyUrl: 'https://beta.example/datenschutz',
      purpose: 'Open an account',
    },
  };

  const as = async (businessId: string, role: 'viewer' | 'developer' | 'admin') => {
    const u = await t.svc.accounts.members.createUserDirect(
      businessId,
      `${role}-${businessId}@rp.test`,
      role,
      'test',
    );
    const s = await t.svc.accounts.signIn.signInDirect(u.id);
    const creds: DashboardCredentials = {
      cookie: `svc_dashboard=${s.token}`,
      csrfToken: s.csrfToken,
      environment: 'sandbox',
    };
    return new Api(t.baseUrl, undefined, creds);
  };

  beforeAll(async () => {
    t = await startTestService({ label: 'relying-party', clock, workers: false });
    for (const k of ['A', 'B'] as const) {
      const {
        businessId: id,
        api,
        workflowId,
      } = await identifyBusiness(t, {
        businessName: `Business ${k}`,
        webhook: DEV_RECEIVER,
      });
      biz[k] = { id, api, workflowId };
    }
    await t.svc.verifierIdentity.registrar.rotateCa();
  });
  afterAll(async () => {
    await t?.stop();
  });

  const requestOf = (k: 'A' | 'B') => signedRequestOf(t.baseUrl, biz[k].api, biz[k].workflowId);

  it('lets an admin set it, refuses a developer and a viewer, validates, and audits every change', async () => {
    const viewer = await as(biz.A.id, 'viewer');
    for (const refused of [viewer, await as(biz.A.id, 'developer')]) {
      const r = await refused.gql(SET, { i: rp.A });
      expect(r.errors?.[0]?.extensions?.code).toBe('role_insufficient');
    }
    expect((await viewer.gql(GET)).data?.relyingParty).toEqual({
      legalName: null,
      displayName: null,
      contactEmail: null,
      privacyPolicyUrl: null,
      purpose: null,
    });
    const admin = await as(biz.A.id, 'admin');
    for (const [field, value] of [
      ['privacyPolicyUrl', 'http://acme.example/privacy'],
      ['privacyPolicyUrl', 'not a url'],
      ['contactEmail', 'nobody'],
      ['purpose', 'x'.repeat(301)],
      ['displayName', 'y'.repeat(81)],
    ] as const) {
      const r = await admin.gql(SET, { i: { ...rp.A, [field]: value } });
      expect(r.errors?.[0]?.extensions).toMatchObject({ code: 'validation_failed', param: `input.${field}` });
    }
    expect((await viewer.gql(GET)).data?.relyingParty.displayName).toBeNull(); // nothing half-written
    expect((await admin.gql(SET, { i: rp.A })).data?.setRelyingParty).toEqual(rp.A);
    expect((await biz.B.api.gql(SET, { i: rp.B })).data?.setRelyingParty).toEqual(rp.B); // the owner
    expect((await viewer.gql(GET)).data?.relyingParty).toEqual(rp.A);
    const audit = await t.svc.ds
      .getRepository(AccountAuditEntity)
      .findBy({ businessId: biz.A.id, action: 'relying_party.set' });
    expect(audit).toHaveLength(1);
    expect(JSON.parse(audit[0]?.detail ?? '{}')).toMatchObject({ environment: 'sandbox', ...rp.A });
  }, 120_000);

  it("carries each business's registration certificate in verifier_info; the wallet shows it", async () => {
    const roots = await t.svc.verifierIdentity.trustedRoots();
    for (const k of ['A', 'B'] as const) {
      const req = await requestOf(k);
      // the registrar leaf's RelyingPartyMetadata names the display name and the privacy policy
      const metadata = cborEncode(
        new Tagged(
          24,
          cborEncode({
            schema_version: 'v1',
            display: {
              display_name: rp[k].displayName,
              logo_uri: '',
              privacy_policy_uri: rp[k].privacyPolicyUrl,
            },
          }),
        ),
      );
      expect(extensionDigest(req.x5c[0] as string)).toBe(createHash('sha256').update(metadata).digest('hex'));
      const { header, claims } = await registrationClaims(req.payload);
      expect(header.typ).toBe('rc-wrp+jwt');
      // signed by the registrar CA (x5c = the registrar root the wallet trusts)
      const ca = await t.svc.verifierIdentity.registrar.currentCa();
      expect(header.x5c).toEqual([ca?.rootCertificate]);
      // TS 119 475 v1.2.1 shape ([A] schemas.ts), checked independently of the server's own check
      const required: [string, string][] = [
        ['name', 'string'],
        ['sub', 'string'],
        ['country', 'string'],
        ['registry_uri', 'string'],
        ['entitlements', 'object'],
        ['iat', 'number'],
      ];
      for (const [n, type] of required) expect(typeof claims[n], n).toBe(type);
      expect(claims.country).toMatch(/^[A-Z]{2}$/);
      expect(new URL(claims.registry_uri as string).protocol).toMatch(/^https?:$/);
      expect(claims.entitlements).toEqual(['https://uri.etsi.org/19475/Entitlement/Service_Provider']);
      expect(claims.policy_id).toEqual(['0.4.0.19475.3.1']);
      expect(claims.intermediary).toEqual({ sub: expect.any(String), sname: expect.any(String) });
      expect((claims.exp as number) - (claims.iat as number)).toBeLessThanOrEqual(366 * 86_400);
      expect(header.iat).toBe(claims.iat);
      // sub names the relying party as the signing leaf's subject organizationIdentifier does (openssl)
      const subject = execFileSync(
        'openssl',
        ['x509', '-inform', 'DER', '-noout', '-subject', '-nameopt', 'RFC2253'],
        {
          input: Buffer.from(req.x5c[0] as string, 'base64'),
        },
      ).toString();
      expect(subject).toContain(`organizationIdentifier=${claims.sub}`);
      expect(claims.sub).toMatch(/^NTRXX-SANDBOX-/);
      expect(claims).toMatchObject({
        name: rp[k].displayName,
        sub_ln: rp[k].legalName,
        privacy_policy: rp[k].privacyPolicyUrl,
        support_uri: `mailto:${rp[k].contactEmail}`,
        purpose: [{ lang: 'en', value: rp[k].purpose }],
      });
      await expect(
        verifyRequestObject(req.jar, { trustedRoots: roots, now: clock.now() }),
      ).resolves.toBeTruthy();
      expect(await t.svc.signedWallet.answerCrossDevice({ persona: 'adult', uri: req.uri })).toEqual({
        status: 200,
        // the same-device redirect back to the hosted page (ADR 0050)
        body: { redirect_uri: expect.stringMatching(/\/s\/[^/]+\/return#response_code=[\w-]{43}$/) },
      });
    }
  }, 300_000);

  it('names only sandbox leaves by the placeholder identifier; a production leaf carries no organizationIdentifier', async () => {
    const subjectOf = (der: string) =>
      execFileSync('openssl', ['x509', '-inform', 'DER', '-noout', '-subject', '-nameopt', 'RFC2253'], {
        input: Buffer.from(der, 'base64'),
      }).toString();
    const sandbox = await t.svc.verifierIdentity.forBusiness({ id: biz.A.id, environment: 'sandbox' });
    const production = await t.svc.verifierIdentity.forBusiness({ id: biz.A.id, environment: 'production' });
    expect(subjectOf(sandbox.x5c[0] as string)).toContain('organizationIdentifier=NTRXX-SANDBOX-');
    const prodSubject = subjectOf(production.x5c[0] as string);
    expect(prodSubject).toContain('OU=production');
    expect(prodSubject).not.toContain('organizationIdentifier');
  }, 300_000);

  it("refuses a request whose verifier_info names another client (B's certificate on A's request)", async () => {
    const a = await requestOf('A');
    const b = await requestOf('B');
    const roots = await t.svc.verifierIdentity.trustedRoots();
    // A's own signer (A's registrar leaf) sends a request carrying B's registration certificate
    const identity = await t.svc.verifierIdentity.forBusiness({ id: biz.A.id, environment: 'sandbox' });
    const tampered = { ...a.payload, verifier_info: b.payload.verifier_info };
    const jar = await identity.sign(decodeProtectedHeader(a.jar) as Json, tampered);
    // the untampered request passes; the tampered one is refused for the mismatch
    await expect(verifyRequestObject(a.jar, { trustedRoots: roots, now: clock.now() })).resolves.toBeTruthy();
    await expect(verifyRequestObject(jar, { trustedRoots: roots, now: clock.now() })).rejects.toThrow(
      /verifier_info does not match the signer/,
    );
  }, 300_000);
});
