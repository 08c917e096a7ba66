// The credential route catalog as a business reads it (GET /v1/catalog, GET /v1/wallets, GraphQL) and the
// production rule it drives: a production session whose workflow needs a primitive that no route accepted for
// production supports is refused with route_unavailable and nothing is stored; sandbox sessions use the
// sandbox reference route. Acceptance is an operator action (CatalogService.setAcceptance), not a business API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RouteCapabilitySet1766800000000 } from '../../server/src/db/migrations/1766800000000-route-capability-set';
import { CredentialRouteEntity } from '../../server/src/modules/credential-routes/catalog.entities';
import { SessionEntity } from '../../server/src/modules/session/session.entity';
import { PRIMITIVES, primitivesOfMask } from '../../server/src/modules/workflow/primitives';
import {
  Api,
  createBusiness,
  type Json,
  setUpIdentifyWorkflow,
  startTestService,
  type TestService,
} from '../support/harness';

const none = { identify: false, age_verify: false, sign: false, attestation: false };

describe('credential route catalog', () => {
  let t: TestService;
  let sandbox: Api;
  let production: Api;
  let businessId: string;
  let prodWorkflowId: string;

  beforeAll(async () => {
    t = await startTestService({ label: 'catalog', workers: false });
    const biz = await createBusiness(t);
    businessId = biz.businessId;
    sandbox = new Api(t.baseUrl, biz.apiKey);
    production = new Api(t.baseUrl, (await t.svc.tenancy.issueApiKey(businessId, 'production')).key);
    // a public https IP literal passes the production webhook rules without DNS; workers are off, so nothing is sent
    ({ workflowId: prodWorkflowId } = await setUpIdentifyWorkflow(production, 'https://8.8.8.8/hooks'));
  });
  afterAll(async () => t?.stop());

  const route = (catalog: Json, id: string) => catalog.routes.find((r: Json) => r.id === id);

  it('needs an API key', async () => {
    for (const p of ['/v1/catalog', '/v1/wallets']) {
      const res = await new Api(t.baseUrl).rest('GET', p);
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('unauthenticated');
    }
    const gql = await new Api(t.baseUrl).gql('{ catalog { id } }');
    expect(gql.errors?.[0].extensions.code).toBe('unauthenticated');
  });

  it('lists routes with wallet, issuer, formats and per-primitive capability, separately for sandbox and production', async () => {
    const res = await sandbox.rest('GET', '/v1/catalog');
    expect(res.status).toBe(200);
    const ref = route(res.body, 'rte_sandbox_reference');
    expect(ref).toMatchObject({
      wallet: { id: 'wal_sandbox_reference', name: 'Sandbox reference wallet' },
      issuer: { id: 'iss_sandbox_pid', identifier: `${t.baseUrl}/sandbox/issuer`, sandbox_only: true },
      formats: expect.arrayContaining(['dc+sd-jwt']),
      sandbox: {
        available: true,
        primitives: { identify: true, age_verify: true, sign: true, attestation: true },
      },
      production: {
        available: false,
        primitives: none,
        acceptance: { provider: false, issuer: false, service: false },
      },
    });
    // honest seed: realistic routes are listed, none is available in production until accepted
    expect(res.body.routes.length).toBeGreaterThanOrEqual(3);
    for (const r of res.body.routes as Json[]) {
      const { provider, issuer, service } = r.production.acceptance;
      expect(r.production.available).toBe(provider && issuer && service);
      expect(r.production.available).toBe(false);
      for (const p of PRIMITIVES) {
        expect(typeof r.capabilities[p]).toBe('boolean');
        expect(r.sandbox.primitives[p]).toBe(r.sandbox.available && r.capabilities[p]);
      }
    }
    expect(route(res.body, 'rte_eudi_pid_test')).toMatchObject({
      issuer: { sandbox_only: true },
      capabilities: { identify: true, sign: false },
    });
    expect(res.body.environments).toEqual({
      sandbox: { identify: true, age_verify: true, sign: true, attestation: true },
      production: none,
    });
    // the same answer for a production key: the catalog is not per environment of the caller
    expect((await production.rest('GET', '/v1/catalog')).body).toEqual(res.body);
  });

  it('lists wallets with what their routes offer', async () => {
    const res = await sandbox.rest('GET', '/v1/wallets');
    expect(res.status).toBe(200);
    const ref = res.body.wallets.find((w: Json) => w.id === 'wal_sandbox_reference');
    expect(ref).toMatchObject({
      provider: 'This service',
      platforms: ['web'],
      sandbox: { available: true },
      production: { available: false, primitives: none },
      routes: ['rte_sandbox_reference'],
    });
    const eudi = res.body.wallets.find((w: Json) => w.id === 'wal_eudi_reference');
    expect(eudi).toMatchObject({ platforms: ['android', 'ios'], sandbox: { available: false } });
    expect(eudi.formats).toEqual(['dc+sd-jwt', 'mso_mdoc']);
  });

  it('answers the same over GraphQL', async () => {
    const rest = (await sandbox.rest('GET', '/v1/catalog')).body;
    const gql = await sandbox.gql(`{
      catalog { id formats wallet { id } issuer { identifier sandboxOnly }
        capabilities { identify ageVerify sign attestation }
        sandbox { available primitives { identify ageVerify sign attestation } }
        production { available primitives { identify ageVerify sign attestation } acceptance { provider issuer service } } }
      wallets { id platforms formats routes sandbox { available } production { available } }
    }`);
    expect(gql.errors).toBeUndefined();
    const flags = (f: Json) => ({
      identify: f.identify,
      age_verify: f.ageVerify,
      sign: f.sign,
      attestation: f.attestation,
    });
    expect(
      gql.data.catalog.map((r: Json) => ({
        id: r.id,
        wallet: r.wallet.id,
        issuer: r.issuer.identifier,
        sandbox_only: r.issuer.sandboxOnly,
        formats: r.formats,
        capabilities: flags(r.capabilities),
        sandbox: { available: r.sandbox.available, primitives: flags(r.sandbox.primitives) },
        production: {
          available: r.production.available,
          primitives: flags(r.production.primitives),
          acceptance: r.production.acceptance,
        },
      })),
    ).toEqual(
      rest.routes.map((r: Json) => ({
        id: r.id,
        wallet: r.wallet.id,
        issuer: r.issuer.identifier,
        sandbox_only: r.issuer.sandbox_only,
        formats: r.formats,
        capabilities: r.capabilities,
        sandbox: r.sandbox,
        production: r.production,
      })),
    );
    const wallets = (await sandbox.rest('GET', '/v1/wallets')).body.wallets;
    expect(gql.data.wallets).toEqual(
      wallets.map((w: Json) => ({
        id: w.id,
        platforms: w.platforms,
        formats: w.formats,
        routes: w.routes,
        sandbox: { available: w.sandbox.available },
        production: { available: w.production.available },
      })),
    );
  });

  it('names the claims an identify step may request per route, the same over REST and GraphQL', async () => {
    const rest = (await sandbox.rest('GET', '/v1/catalog')).body;
    const gql = await sandbox.gql('{ catalog { id identifyClaims capabilities { identify } } }');
    for (const r of gql.data.catalog as Json[]) {
      expect(route(rest, r.id).identify_claims).toEqual(r.identifyClaims);
      // a route that cannot identify offers no claim names
      if (!r.capabilities.identify) expect(r.identifyClaims).toEqual([]);
    }
    expect(route(rest, 'rte_sandbox_reference').identify_claims).toEqual([
      'given_name',
      'family_name',
      'birth_date',
      'nationality',
      'document_status',
    ]);
    // each name offered is one the workflow editor's server accepts (a draft with all of them is saved)
    const wf = await sandbox.gql(
      `mutation($input: CreateWorkflowInput!) { createWorkflow(input: $input) { id draftSteps { claims } } }`,
      {
        input: {
          name: 'All offered',
          steps: [{ primitive: 'identify', claims: route(rest, 'rte_sandbox_reference').identify_claims }],
        },
      },
    );
    expect(wf.errors).toBeUndefined();
    expect(wf.data.createWorkflow.draftSteps[0].claims).toHaveLength(5);
  });

  it('creates sandbox sessions over the sandbox reference route', async () => {
    const { workflowId } = await setUpIdentifyWorkflow(sandbox, 'http://127.0.0.1:9/hooks');
    const res = await sandbox.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    expect(res.status).toBe(201);
  });

  const sessionsOf = async () =>
    t.svc.ds.getRepository(SessionEntity).countBy({ businessId, environment: 'production' });

  it('refuses a production session when no route accepted for production supports the workflow, storing nothing', async () => {
    const res = await production.rest(
      'POST',
      '/v1/sessions',
      { workflow_id: prodWorkflowId },
      { 'Idempotency-Key': 'prod-1' },
    );
    expect(res.status).toBe(409);
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(res.body).toMatchObject({ code: 'route_unavailable', param: 'workflow_id' });
    expect(res.body.detail).toContain('identify');
    // no session, so nothing holds the key either (it is a column of the session row: ADR 0024)
    expect(await sessionsOf()).toBe(0);
  });

  it('never lets the sandbox route or a test issuer be accepted for production', async () => {
    for (const id of ['rte_sandbox_reference', 'rte_eudi_pid_test']) {
      await expect(
        t.svc.catalog.setAcceptance(id, { provider: true, issuer: true, service: true }),
      ).rejects.toMatchObject({ code: 'validation_failed' });
    }
    const ref = route((await sandbox.rest('GET', '/v1/catalog')).body, 'rte_sandbox_reference');
    expect(ref.production.available).toBe(false);
  });

  it("each route's note says what the route really does: the protocols it names are exactly its own list", async () => {
    const names: Record<string, string> = { openid4vp: 'OpenID4VP', 'org-iso-mdoc': 'org-iso-mdoc' };
    const check = (r: Json) => {
      for (const p of PRIMITIVES) {
        const listed: string[] = r.primitive_protocols[p];
        for (const [proto, name] of Object.entries(names)) {
          // a protocol the note names for a primitive is in its list, and the reverse
          const said = new RegExp(`\\b${p}\\b[^.;]* over [^.;]*${name}`).test(r.notes);
          expect(said, `${r.id} ${p} ${proto}`).toBe(listed.includes(proto));
        }
      }
      expect(r.notes).not.toMatch(/OpenID4VP only/i);
    };
    const catalog = (await sandbox.rest('GET', '/v1/catalog')).body;
    for (const r of catalog.routes) check(r);
    const apple = route(catalog, 'rte_apple_us_mdl');
    expect(apple.primitive_protocols.identify).toEqual(['openid4vp', 'org-iso-mdoc']);
    expect(apple.notes).toMatch(/identify and age_verify over OpenID4VP or org-iso-mdoc/);

    // a database seeded by an earlier release keeps its old Apple note until the next start replaces it;
    // an operator's own note is kept as written (after the derived sentence)
    const routes = t.svc.ds.getRepository(CredentialRouteEntity);
    const old =
      'Listed for planning. Safari presents mdocs over the org-iso-mdoc protocol of the Digital Credentials API (ISO 18013-7 Annex C); this service requests over OpenID4VP only, so the route needs that protocol first, and then acceptance by the wallet provider, the issuing states and this service before production.';
    await routes.update({ id: 'rte_apple_us_mdl' }, { notes: old });
    await routes.update({ id: 'rte_google_us_mdl' }, { notes: 'Operator: ask Google first.' });
    await t.svc.catalog.ensureSeeded({
      sandboxIssuerIdentifier: `${t.baseUrl}/sandbox/issuer`,
      sandboxEnabled: true,
    });
    const again = (await sandbox.rest('GET', '/v1/catalog')).body;
    for (const r of again.routes) check(r);
    expect(route(again, 'rte_google_us_mdl').notes).toMatch(/ Operator: ask Google first\.$/);
    const gql = await sandbox.gql('{ catalog { id notes } }');
    const appleGql = gql.data.catalog.find((r: Json) => r.id === 'rte_apple_us_mdl');
    expect(appleGql.notes).toBe(route(again, 'rte_apple_us_mdl').notes);
  });

  it('opens production only when provider, issuer and service have all accepted a route', async () => {
    // two of three acceptances: still unavailable
    const partial = await t.svc.catalog.setAcceptance('rte_google_us_mdl', { provider: true, issuer: true });
    expect(partial.production).toMatchObject({
      available: false,
      acceptance: { provider: true, issuer: true, service: false },
    });
    expect((await production.rest('POST', '/v1/sessions', { workflow_id: prodWorkflowId })).body.code).toBe(
      'route_unavailable',
    );

    // a hand-edited row claiming production without the acceptances opens nothing
    await t.svc.ds
      .getRepository(CredentialRouteEntity)
      .update({ id: 'rte_apple_us_mdl' }, { productionAvailable: true });
    const catalog = (await sandbox.rest('GET', '/v1/catalog')).body;
    expect(route(catalog, 'rte_apple_us_mdl').production.available).toBe(false);
    expect(catalog.environments.production.identify).toBe(false);
    expect((await production.rest('POST', '/v1/sessions', { workflow_id: prodWorkflowId })).status).toBe(409);
    expect(await sessionsOf()).toBe(0);

    // the third acceptance opens the route, and only for the primitives it supports
    await t.svc.catalog.setAcceptance('rte_google_us_mdl', { service: true });
    const after = (await sandbox.rest('GET', '/v1/catalog')).body;
    expect(route(after, 'rte_google_us_mdl').production).toMatchObject({
      available: true,
      primitives: { identify: true, age_verify: true, sign: false, attestation: false },
    });
    expect(after.environments.production).toEqual({
      identify: true,
      age_verify: true,
      sign: false,
      attestation: false,
    });
    const wallets = (await production.rest('GET', '/v1/wallets')).body.wallets;
    expect(wallets.find((w: Json) => w.id === 'wal_google_wallet').production.available).toBe(true);

    const created = await production.rest(
      'POST',
      '/v1/sessions',
      { workflow_id: prodWorkflowId },
      { 'Idempotency-Key': 'prod-1' },
    );
    expect(created.status).toBe(201);
    expect(await sessionsOf()).toBe(1);

    // withdrawing an acceptance closes production again
    await t.svc.catalog.setAcceptance('rte_google_us_mdl', { issuer: false });
    expect((await production.rest('POST', '/v1/sessions', { workflow_id: prodWorkflowId })).body.code).toBe(
      'route_unavailable',
    );
    expect(await sessionsOf()).toBe(1);
  });

  it("keeps every route's capabilities through the capability-set migration, down to one column per primitive and back", async () => {
    const before = (await sandbox.rest('GET', '/v1/catalog')).body;
    const migration = new RouteCapabilitySet1766800000000();
    const q = t.svc.ds.createQueryRunner();
    try {
      await migration.down(q);
      const flags = (await q.query(
        'SELECT id, identify, age_verify, sign, attestation FROM credential_route ORDER BY id',
      )) as Record<string, unknown>[];
      const on = (v: unknown) => v === 1 || v === true || v === '1';
      const google = flags.find((r) => r.id === 'rte_google_us_mdl') as Record<string, unknown>;
      expect(PRIMITIVES.filter((p) => on(google[p]))).toEqual(['identify', 'age_verify']);
      await migration.up(q);
      const rows = (await q.query('SELECT id, primitives FROM credential_route ORDER BY id')) as {
        id: string;
        primitives: number | string;
      }[];
      for (const r of rows) {
        const was = flags.find((f) => f.id === r.id) as Record<string, unknown>;
        expect(primitivesOfMask(Number(r.primitives)), r.id).toEqual(PRIMITIVES.filter((p) => on(was[p])));
      }
    } finally {
      await q.release();
    }
    expect((await sandbox.rest('GET', '/v1/catalog')).body).toEqual(before);
  });
});
