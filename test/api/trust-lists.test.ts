// Issuer trust per route and from ETSI trust lists (issue 19, ADR 0036), over the real hosted transport, with
// lists served by a real HTTP server and signed at test time by the test's own CA (xml-crypto, XAdES-BES; the
// LoTL with ECDSA P-256, the LoTE with RSA):
// - a List of Trusted Lists points at a List of Trusted Entities; the entity's CA becomes the anchor of route X;
// - the credential of that entity completes a step that allows route X and is refused (issuer_untrusted, the
//   detail naming the route) by a step that allows only route Y;
// - `pnpm operator why-trusted` names the list, the entity, the certificate and the route;
// - a tampered list, an expired one, one signed by an untrusted (RSA or EC) key and one whose SignatureMethod
//   does not fit its key change nothing (refused versions are
//   recorded; the last good version stays and the credential still completes);
// - after the list (refreshed by the worker's pass on its NextUpdate) removes the entity, the next session
//   refuses the credential with issuer_untrusted.
import { sign } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { ensureRoute } from '../../server/src/modules/catalog/catalog.factory';
import { loadSandboxKey } from '../../server/src/modules/sandbox/sandbox-issuer';
import { StepResultEntity } from '../../server/src/modules/session/step-result.entity';
import {
  type ListSigner,
  listSigner,
  loteXml,
  lotlXml,
  type SignListOptions,
  signList,
} from '../../server/src/modules/trustlist/trust-list-fixtures';
import { XMLDSIG } from '../../server/src/modules/trustlist/xmldsig-methods';
import { PID_VCT } from '../../server/src/modules/verification/dcql';
import {
  issueCertificate,
  issueSdJwtVc,
  type PkiParty,
  rootCa,
  statusListToken,
  x5cOf,
} from '../../server/src/modules/verification/x509-test-pki';
import { runOperator } from '../support/dashboard';
import { Api, createBusiness, IDENTIFY_CLAIMS, startTestService, type TestService } from '../support/harness';
import { SignerClient } from '../support/signer';
import { publishWorkflow } from '../support/workflows';

const ISS = 'https://pid.listed-provider.example';
const ENTITY = 'Listed PID Provider GmbH';
const ROUTE_X = 'rte_list_x';
const ROUTE_Y = 'rte_list_y';
const DAY = 86_400_000;
const HOUR = 3_600_000;

describe('issuer trust per route, from ETSI trust lists', () => {
  const clock = new ManualClock(Date.now());
  let t: TestService;
  let api: Api;
  let onX: string;
  let onY: string;
  let server: http.Server;
  let base: string;
  const served = new Map<string, string>();
  let issuer: { root: PkiParty; ca: PkiParty; leaf: PkiParty };
  let lotlAnchor: ListSigner;
  let loteSigner: ListSigner;
  let listId: string;

  /** A LoTE signed by the LoTE signer the LoTL names (valid for one hour of the test clock by default). */
  const lote = (
    entities: { name: string; certificates: PkiParty['cert'][] }[],
    sequence: number,
    opts: { signer?: ListSigner; nextUpdate?: Date } & SignListOptions = {},
  ) =>
    signList(
      loteXml({
        sequence,
        issued: new Date(clock.now().getTime() - 60_000),
        nextUpdate: opts.nextUpdate ?? new Date(clock.now().getTime() + HOUR),
        entities,
      }),
      opts.signer ?? loteSigner,
      opts,
    );

  beforeAll(async () => {
    t = await startTestService({ label: 'trustlists', workers: false, clock });
    api = new Api(t.baseUrl, (await createBusiness(t)).apiKey);
    const now = clock.now();
    // two routes of the sandbox reference wallet: X with the listed issuer, Y with another issuer
    await ensureRoute(t.svc.ds, {
      id: ROUTE_X,
      walletId: 'wal_sandbox_reference',
      issuerId: 'iss_listed',
      identifier: ISS,
      now,
    });
    await ensureRoute(t.svc.ds, {
      id: ROUTE_Y,
      walletId: 'wal_sandbox_reference',
      issuerId: 'iss_other',
      identifier: 'https://other.example',
      now,
    });
    const step = (routes: string[]) => [{ primitive: 'identify' as const, claims: IDENTIFY_CLAIMS, routes }];
    ({ workflowId: onX } = await publishWorkflow(api, step([ROUTE_X]), 'http://127.0.0.1:9/hooks', 'On X'));
    ({ workflowId: onY } = await publishWorkflow(api, step([ROUTE_Y]), undefined, 'On Y'));

    // the issuer's PKI: the entity's CA (on the list), an issuing CA, the signer naming iss
    const validity = {
      notBefore: new Date(now.getTime() - DAY),
      notAfter: new Date(now.getTime() + 365 * DAY),
    };
    const root = await rootCa('Listed PID Provider Root', validity);
    const ca = await issueCertificate(root, 'Listed PID Provider Issuing CA', { ca: true, ...validity });
    const leaf = await issueCertificate(ca, 'Listed PID Provider signer', {
      san: [{ type: 'url', value: ISS }],
      ...validity,
    });
    issuer = { root, ca, leaf };

    // the lists' PKI: the LoTL scheme operator (the configured anchor) and the LoTE signer the LoTL names
    lotlAnchor = await listSigner('Test LoTL Scheme Operator', undefined, now, 'P-256');
    loteSigner = await listSigner('Test LoTE Signer', undefined, now);

    server = http.createServer((req, res) => {
      const body = served.get(req.url ?? '');
      if (body === undefined) res.writeHead(404).end();
      else
        res
          .writeHead(200, {
            'content-type': req.url?.startsWith('/status') ? 'application/statuslist+jwt' : 'application/xml',
          })
          .end(body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    served.set(
      '/status/1',
      await statusListToken({
        signer: leaf,
        uri: `${base}/status/1`,
        iat: Math.floor(now.getTime() / 1000),
        x5c: x5cOf(leaf, ca),
      }),
    );
    served.set(
      '/lotl.xml',
      await signList(
        lotlXml({
          sequence: 1,
          issued: new Date(now.getTime() - 60_000),
          nextUpdate: new Date(now.getTime() + 30 * DAY),
          pointers: [{ location: `${base}/lote.xml`, signers: [loteSigner.cert] }],
        }),
        lotlAnchor,
      ),
    );
    served.set('/lote.xml', await lote([{ name: ENTITY, certificates: [root.cert] }], 1));

    const added = await t.svc.trustLists.add({
      name: 'Test LoTL',
      kind: 'lotl',
      source: `${base}/lotl.xml`,
      environment: 'sandbox',
      routes: [ROUTE_X],
      anchorsPem: lotlAnchor.cert.toString('pem'),
    });
    listId = added.id;
    expect(served.get('/lotl.xml')).toContain(`SignatureMethod Algorithm="${XMLDSIG.ecdsaSha256}"`);
    expect(added.refresh).toMatchObject({ status: 'accepted', added: [{ entity: ENTITY }], removed: [] });
  }, 120_000);
  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await t?.stop();
  });

  async function credential(): Promise<string> {
    const holder = await loadSandboxKey(t.svc.ds, 'holder', 'adult');
    const { kty, crv, x, y } = holder.publicJwk;
    const iat = Math.floor(clock.now().getTime() / 1000);
    return issueSdJwtVc({
      signer: issuer.leaf,
      x5c: x5cOf(issuer.leaf, issuer.ca),
      payload: {
        iss: ISS,
        iat,
        exp: iat + 30 * 86_400,
        vct: PID_VCT,
        cnf: { jwk: { kty, crv, x, y } },
        status: { status_list: { idx: 3, uri: `${base}/status/1` } },
        given_name: 'Lena',
        family_name: 'Listed',
        birth_date: '1991-02-03',
        nationality: 'DE',
      },
      disclosable: ['given_name', 'family_name', 'birth_date', 'nationality'],
    });
  }

  async function present(workflowId: string) {
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    expect([created.status, created.body]).toEqual([201, expect.anything()]);
    const signer = new SignerClient(t.baseUrl, created.body.id);
    expect((await signer.start()).status).toBe(200);
    const wr = await signer.walletRequest();
    const response = await t.svc.wallet.presentWith({
      persona: 'adult',
      request: wr.body.request,
      origin: t.baseUrl,
      overrides: { credential: await credential() },
    });
    return { id: created.body.id as string, res: await signer.submit(wr.body.request_id, response) };
  }

  it('completes on the route the list trusts, and refuses the same credential on another route', async () => {
    const ok = await present(onX);
    expect(ok.res.status).toBe(200);
    expect((await api.rest('GET', `/v1/sessions/${ok.id}`)).body.status).toBe('completed');
    const other = await present(onY);
    expect(other.res.status).toBe(422);
    expect(other.res.body.code).toBe('issuer_untrusted');
    expect(other.res.body.detail).toContain(ROUTE_Y);
    expect(await t.svc.ds.getRepository(StepResultEntity).countBy({ sessionId: other.id })).toBe(0);
  }, 120_000);

  it('refuses to publish a step whose routes are not route ids of the catalog', async () => {
    for (const [routes, detail] of [
      [['rte_nowhere'], /not in the catalog/],
      [['not a route'], /credential route ids/],
    ] as const) {
      const created = await api.gql(
        'mutation($input: CreateWorkflowInput!) { createWorkflow(input: $input) { id } }',
        { input: { name: 'Bad routes', steps: [{ primitive: 'identify', claims: ['given_name'], routes }] } },
      );
      const errors =
        created.errors ??
        (
          await api.gql('mutation($id: ID!) { publishWorkflow(workflowId: $id) { revision } }', {
            id: created.data.createWorkflow.id,
          })
        ).errors;
      expect(errors?.[0]?.extensions).toMatchObject({ code: 'workflow_invalid', param: 'steps[0].routes' });
      expect(errors?.[0]?.message).toMatch(detail);
    }
  }, 60_000);

  it('why-trusted names the list, the entity, the certificate and the route', async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'why-')), 'pid.sdjwt');
    fs.writeFileSync(file, await credential());
    const env = { DATABASE_URL: t.db.url, DATA_DIR: t.svc.config.dataDir, BASE_URL: t.baseUrl };
    const out = await runOperator(['why-trusted', file, '--env', 'sandbox', '--operator', 'ops-ann'], env);
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    const [line, ...json] = out.stdout.split('\n');
    expect(line).toContain(`route ${ROUTE_X}`);
    expect(line).toContain('trust list "Test LoTL"');
    expect(line).toContain(`entity "${ENTITY}"`);
    expect(line).toContain('CN=Listed PID Provider Root');
    const report = JSON.parse(json.join('\n'));
    expect(report).toMatchObject({ format: 'dc+sd-jwt', issuer: ISS, trusted: true, route: ROUTE_X });
    expect(report.routes).toContainEqual(expect.objectContaining({ route: ROUTE_Y, trusted: false }));
  }, 120_000);

  it('a tampered list, an expired one, an untrusted signer and a mismatched method change nothing', async () => {
    const good = served.get('/lote.xml') as string;
    const stranger = await listSigner('Somebody else', undefined, clock.now());
    const ecStranger = await listSigner('Somebody else (EC)', undefined, clock.now(), 'P-256');
    const rawRsa = (signedInfo: string, key: string) =>
      sign('sha256', Buffer.from(signedInfo), key).toString('base64');
    const variants: [string, string, RegExp][] = [
      // a second entity slipped into the signed list: the digest no longer matches
      ['tampered', good.replace(ENTITY, 'Mallory PID Provider'), /does not verify/],
      [
        'expired',
        await lote([{ name: ENTITY, certificates: [issuer.root.cert] }], 2, {
          nextUpdate: new Date(clock.now().getTime() - 1000),
        }),
        /expired/,
      ],
      [
        'RSA signature declared as ECDSA',
        await lote([{ name: ENTITY, certificates: [issuer.root.cert] }], 2, {
          method: XMLDSIG.ecdsaSha256,
          signatureValue: rawRsa,
        }),
        /needs an EC key/,
      ],
      ['untrusted EC signer', await lote([], 2, { signer: ecStranger }), /not signed by a configured anchor/],
      ['untrusted signer', await lote([], 2, { signer: stranger }), /not signed by a configured anchor/],
    ];
    for (const [what, xml, why] of variants) {
      served.set('/lote.xml', xml);
      const r = await t.svc.trustLists.refresh(listId);
      expect([what, r.status]).toEqual([what, 'refused']);
      expect(r.error).toMatch(why);
    }
    served.set('/lote.xml', good);
    const versions = await t.svc.trustLists.versions(listId);
    expect(versions.map((v) => v.status)).toEqual([...Array(5).fill('refused'), 'accepted']);
    const list = await t.svc.trustLists.byNameOrId(listId);
    expect(list.currentVersion).toBe(1);
    expect(list.lastError).toMatch(/not signed by a configured anchor/);
    const still = await present(onX);
    expect(still.res.status).toBe(200);
  }, 120_000);

  it('refuses the credential in the next session once the refreshed list no longer names its entity', async () => {
    served.set('/lote.xml', await lote([], 2, { nextUpdate: new Date(clock.now().getTime() + 3 * HOUR) }));
    // not due yet: the worker's pass leaves the list alone
    expect(await t.svc.trustLists.refreshDue()).toBe(0);
    clock.advance(2 * HOUR); // past the retry time of the refused attempts and the version's NextUpdate
    expect(await t.svc.trustLists.refreshDue()).toBe(1);
    const [latest] = await t.svc.trustLists.versions(listId, 1);
    expect(latest).toMatchObject({ status: 'accepted', attempt: 7 });
    expect(JSON.parse(latest?.removed ?? '[]')).toEqual([
      { entity: ENTITY, fingerprint: expect.any(String) },
    ]);
    const refused = await present(onX);
    expect(refused.res.status).toBe(422);
    expect(refused.res.body.code).toBe('issuer_untrusted');
    expect(refused.res.body.detail).toContain(ROUTE_X);
  }, 120_000);
});
