// Issuer trust at the API level, per environment, over the real hosted transport:
// - a production session refuses the sandbox reference wallet's credential (issuer_untrusted), completing nothing;
// - an issuer trusted in production only through an X.509 anchor held in the database completes the same step
//   with a credential whose x5c chain leads to that anchor, and its status list (served over HTTP) verifies
//   with the same trust; the same credential is refused in a sandbox session, where no anchor is stored.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditRecordEntity } from '../../server/src/modules/audit/audit-record.entity';
import { ensureRoute } from '../../server/src/modules/catalog/catalog.factory';
import { loadSandboxKey } from '../../server/src/modules/sandbox/sandbox-issuer';
import { StepResultEntity } from '../../server/src/modules/session/step-result.entity';
import { PID_VCT } from '../../server/src/modules/verification/dcql';
import { TrustStore } from '../../server/src/modules/verification/trust';
import {
  issueCertificate,
  issueSdJwtVc,
  type PkiParty,
  rootCa,
  statusListToken as signStatusList,
  x5cOf,
} from '../../server/src/modules/verification/x509-test-pki';
import {
  Api,
  createBusiness,
  setUpIdentifyWorkflow,
  startTestService,
  type TestService,
} from '../support/harness';
import { SignerClient } from '../support/signer';

const ISS = 'https://pid.anchored-issuer.example';
const DAY = 86_400_000;

async function certificateAuthority(): Promise<{ root: PkiParty; ca: PkiParty; leaf: PkiParty }> {
  const now = Date.now();
  const validity = { notBefore: new Date(now - DAY), notAfter: new Date(now + 365 * DAY) };
  const root = await rootCa('Anchored PID Root', validity);
  const ca = await issueCertificate(root, 'Anchored PID Issuing CA', { ca: true, ...validity });
  const leaf = await issueCertificate(ca, 'Anchored PID signer', {
    san: [{ type: 'url', value: ISS }],
    ...validity,
  });
  return { root, ca, leaf };
}

describe('issuer trust per environment over the hosted transport', () => {
  let t: TestService;
  let production: Api;
  let sandbox: Api;
  let prodWorkflowId: string;
  let sandboxWorkflowId: string;
  let lists: http.Server;
  let listUri: string;
  let chain: { root: PkiParty; ca: PkiParty; leaf: PkiParty };
  let listToken = '';

  beforeAll(async () => {
    t = await startTestService({ label: 'trust', workers: false });
    const biz = await createBusiness(t);
    sandbox = new Api(t.baseUrl, biz.apiKey);
    production = new Api(t.baseUrl, (await t.svc.tenancy.issueApiKey(biz.businessId, 'production')).key);
    ({ workflowId: prodWorkflowId } = await setUpIdentifyWorkflow(production, 'https://8.8.8.8/hooks'));
    ({ workflowId: sandboxWorkflowId } = await setUpIdentifyWorkflow(sandbox, 'http://127.0.0.1:9/hooks'));
    // operators: a route that identifies is accepted for production, and the issuer's root is a production anchor
    await t.svc.catalog.setAcceptance('rte_google_us_mdl', { provider: true, issuer: true, service: true });
    // trust belongs to a route (ADR 0036): the anchored issuer's route, accepted for production
    await ensureRoute(t.svc.ds, {
      id: 'rte_anchored_pid',
      walletId: 'wal_eudi_reference',
      issuerId: 'iss_anchored_pid',
      identifier: ISS,
      production: true,
      now: new Date(),
    });
    chain = await certificateAuthority();
    await new TrustStore(t.svc.ds).addAnchor({
      issuer: ISS,
      environment: 'production',
      routeId: 'rte_anchored_pid',
      name: 'Anchored PID Root',
      certificate: chain.root.cert.toString('pem'),
      now: new Date(),
    });

    lists = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/statuslist+jwt' }).end(listToken);
    });
    await new Promise<void>((resolve) => lists.listen(0, '127.0.0.1', resolve));
    listUri = `http://127.0.0.1:${(lists.address() as AddressInfo).port}/lists/1`;
    listToken = await signStatusList({
      signer: chain.leaf,
      uri: listUri,
      iat: Math.floor(Date.now() / 1000),
      x5c: x5cOf(chain.leaf, chain.ca),
    });
  });
  afterAll(async () => {
    await new Promise((resolve) => lists?.close(resolve));
    await t?.stop();
  });

  /** A PID of the adult persona's holder key, issued by the anchored issuer with its x5c chain. */
  async function anchoredCredential(): Promise<string> {
    const holder = await loadSandboxKey(t.svc.ds, 'holder', 'adult');
    const { kty, crv, x, y } = holder.publicJwk;
    const iat = Math.floor(Date.now() / 1000);
    return issueSdJwtVc({
      signer: chain.leaf,
      x5c: x5cOf(chain.leaf, chain.ca),
      payload: {
        iss: ISS,
        iat,
        exp: iat + 30 * 86_400,
        vct: PID_VCT,
        cnf: { jwk: { kty, crv, x, y } },
        status: { status_list: { idx: 5, uri: listUri } },
        given_name: 'Jan',
        family_name: 'Jansen',
        birth_date: '1990-05-01',
        nationality: 'NL',
      },
      disclosable: ['given_name', 'family_name', 'birth_date', 'nationality'],
    });
  }

  async function presentInNewSession(api: Api, workflowId: string, credential?: string) {
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    expect(created.status).toBe(201);
    const signer = new SignerClient(t.baseUrl, created.body.id);
    expect((await signer.start()).status).toBe(200);
    const wr = await signer.walletRequest();
    expect(wr.status).toBe(200);
    const response = await t.svc.wallet.presentWith({
      persona: 'adult',
      request: wr.body.request,
      origin: t.baseUrl,
      overrides: credential ? { credential } : {},
    });
    return { id: created.body.id as string, res: await signer.submit(wr.body.request_id, response) };
  }

  it('refuses the reference wallet in a production session with issuer_untrusted and completes nothing', async () => {
    const { id, res } = await presentInNewSession(production, prodWorkflowId);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('issuer_untrusted');
    const read = await production.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.status).toBe('in_progress');
    expect(read.body.results).toEqual([]);
    expect(await t.svc.ds.getRepository(StepResultEntity).countBy({ sessionId: id })).toBe(0);
    // the same presentation is accepted in the sandbox, so the refusal is about the environment
    const ok = await presentInNewSession(sandbox, sandboxWorkflowId);
    expect(ok.res.status).toBe(200);
  });

  it('completes a production step with a credential trusted through a stored X.509 anchor', async () => {
    const { id, res } = await presentInNewSession(production, prodWorkflowId, await anchoredCredential());
    expect(res.status).toBe(200);
    const read = await production.rest('GET', `/v1/sessions/${id}`);
    expect(read.body.status).toBe('completed');
    expect(read.body.results[0].claims).toMatchObject({
      given_name: 'Jan',
      family_name: 'Jansen',
      nationality: 'NL',
      document_status: 'valid',
    });
    const audit = await t.svc.ds.getRepository(AuditRecordEntity).findOneByOrFail({ sessionId: id });
    expect(audit.record).toContain(ISS);
  });

  it('refuses the anchored credential in a sandbox session, where the anchor is not held', async () => {
    const { id, res } = await presentInNewSession(sandbox, sandboxWorkflowId, await anchoredCredential());
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('issuer_untrusted');
    expect(await t.svc.ds.getRepository(StepResultEntity).countBy({ sessionId: id })).toBe(0);
  });
});
