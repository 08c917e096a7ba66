// mdoc revocation through the real service: the sandbox mdoc issuer's MSOs name a Token Status List entry (EU
// PID, age verification; CWT form) or an ISO 18013-5 identifier list entry (mDL), both lists are served under
// /sandbox and fetched by the verifier over HTTP. A valid document says document_status "valid"; the revoked and
// suspended personas are refused with credential_revoked / credential_suspended over OpenID4VP and over Annex C
// (the independent wallet); a list that cannot be fetched, is signed under another IACA or was changed in transit
// is status_check_failed, and nothing of the step is stored.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SandboxMdocIssuer } from '../../server/src/modules/sandbox/mdoc/mdoc-issuer';
import {
  SANDBOX_MDOC_IDENTIFIER_LIST_ID,
  SANDBOX_MDOC_STATUS_LIST_ID,
} from '../../server/src/modules/sandbox/mdoc/mdoc-status-lists';
import { SandboxCredentialEntity } from '../../server/src/modules/sandbox/sandbox-credential.entity';
import { loadSandboxKey } from '../../server/src/modules/sandbox/sandbox-issuer';
import { MDOC_MDL, MDOC_PID } from '../../server/src/modules/verification/mdoc/mdoc-query';
import {
  Api,
  createBusiness,
  type Json,
  setUpIdentifyWorkflow,
  startTestService,
  type TestService,
} from '../support/harness';
import { type AnnexCRequest, AnnexCWallet } from '../support/independent-wallet/annex-c-wallet';
import { expectNothingStored } from '../support/nothing-stored';
import { SignerClient } from '../support/signer';
import { publishWorkflow } from '../support/workflows';

describe('mdoc revocation (Token Status List CWT, ISO 18013-5 identifier list)', () => {
  let t: TestService;
  let api: Api;
  let identifyWf: string;
  let ageWf: string;
  let issuer: SandboxMdocIssuer;
  /** A status list server outside the service (a true edge): serves whatever the test puts here. */
  let listServer: http.Server;
  let listBase: string;
  const served = new Map<string, { type: string; body: Uint8Array }>();

  beforeAll(async () => {
    t = await startTestService({ label: 'mdoc_status', workers: false });
    const biz = await createBusiness(t);
    api = new Api(t.baseUrl, biz.apiKey);
    ({ workflowId: identifyWf } = await setUpIdentifyWorkflow(api, 'http://127.0.0.1:9/hooks'));
    ({ workflowId: ageWf } = await publishWorkflow(api, [{ primitive: 'age_verify', threshold: 18 }]));
    issuer = new SandboxMdocIssuer({ ds: t.svc.ds, clock: t.svc.clock, baseUrl: t.baseUrl });
    listServer = http.createServer((req, res) => {
      const hit = served.get(req.url ?? '');
      if (!hit) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': hit.type }).end(Buffer.from(hit.body));
    });
    await new Promise<void>((resolve) => listServer.listen(0, '127.0.0.1', resolve));
    listBase = `http://127.0.0.1:${(listServer.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => listServer?.close(resolve));
    await t?.stop();
  });

  async function atWalletStep(workflowId = identifyWf) {
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflowId });
    expect(created.status).toBe(201);
    const signer = new SignerClient(t.baseUrl, created.body.id);
    expect((await signer.start()).status).toBe(200);
    const wr = await signer.walletRequest();
    expect(wr.status).toBe(200);
    return { id: created.body.id as string, signer, wr: wr.body as Json };
  }

  /** Nothing of the refused step was stored (support/nothing-stored.ts). */
  const nothingCompleted = (id: string) => expectNothingStored(t, api, id, { status: null });

  it('serves both list forms as signed CWTs with their media types', async () => {
    const tsl = await fetch(`${t.baseUrl}/sandbox/mdoc-status-lists/${SANDBOX_MDOC_STATUS_LIST_ID}`);
    expect(tsl.status).toBe(200);
    expect(tsl.headers.get('content-type')).toContain('application/statuslist+cwt');
    const tslBytes = new Uint8Array(await tsl.arrayBuffer());
    expect(tslBytes[0]).toBe(0xd2); // tagged COSE_Sign1
    const idl = await fetch(`${t.baseUrl}/sandbox/mdoc-identifier-lists/${SANDBOX_MDOC_IDENTIFIER_LIST_ID}`);
    expect(idl.status).toBe(200);
    expect(idl.headers.get('content-type')).toContain('application/cwt');
    expect((await fetch(`${t.baseUrl}/sandbox/mdoc-identifier-lists/idl_other`)).status).toBe(404);
  });

  it('a valid mdoc PID and mDL give document_status "valid" (both lists checked), recorded in the audit', async () => {
    for (const [persona, doctype] of [
      ['adult_mdoc', MDOC_PID.doctype],
      ['adult_mdl', MDOC_MDL.doctype],
    ] as const) {
      const { id, signer, wr } = await atWalletStep();
      const response = await t.svc.wallet.present({ persona, request: wr.request, origin: t.baseUrl });
      const res = await signer.submit(wr.request_id, response);
      expect(res.status).toBe(200);
      const read = await api.rest('GET', `/v1/sessions/${id}`);
      expect(read.body.results[0].claims.document_status).toBe('valid');
      const audit = JSON.stringify((await api.rest('GET', `/v1/audits/${id}_0`)).body);
      expect(audit).toContain(doctype === MDOC_MDL.doctype ? '"identifier_list"' : '"status_list"');
      expect(audit).toContain('"status":"valid"');
    }
  });

  it.each([
    { persona: 'revoked_mdoc', code: 'credential_revoked', wf: 'identify' },
    { persona: 'revoked_mdl', code: 'credential_revoked', wf: 'identify' },
    { persona: 'suspended_mdoc', code: 'credential_suspended', wf: 'identify' },
    { persona: 'revoked_mdoc', code: 'credential_revoked', wf: 'age' },
    { persona: 'suspended_mdoc', code: 'credential_suspended', wf: 'age' },
  ])('OpenID4VP: $persona ($wf) is refused with $code', async ({ persona, code, wf }) => {
    const { id, signer, wr } = await atWalletStep(wf === 'age' ? ageWf : identifyWf);
    const response = await t.svc.wallet.present({ persona, request: wr.request, origin: t.baseUrl });
    const res = await signer.submit(wr.request_id, response);
    expect(res.status).toBe(422);
    expect(res.body.code).toBe(code);
    await nothingCompleted(id);
  });

  it.each([
    { persona: 'revoked', code: 'credential_revoked' },
    { persona: 'suspended', code: 'credential_suspended' },
  ])(
    'Annex C (independent wallet): the $persona persona is refused with $code',
    async ({ persona, code }) => {
      const devicePrivateJwk = (await loadSandboxKey(t.svc.ds, 'holder', persona)).privateJwk as JsonWebKey;
      const rows = await t.svc.ds
        .getRepository(SandboxCredentialEntity)
        .findBy({ persona, format: 'mso_mdoc' });
      const wallet = new AnnexCWallet(rows.map((r) => ({ issuerSigned: r.credential, devicePrivateJwk })));
      for (const wf of [identifyWf, ageWf]) {
        const created = await api.rest('POST', '/v1/sessions', { workflow_id: wf });
        const signer = new SignerClient(t.baseUrl, created.body.id);
        await signer.start();
        const wr = await signer.call('POST', '/wallet-request/org_iso_mdoc');
        expect(wr.status).toBe(200);
        const answer = await wallet.answer(wr.body.request as AnnexCRequest, new URL(t.baseUrl).origin);
        const res = await signer.submit(wr.body.request_id, answer);
        expect(res.status).toBe(422);
        expect(res.body.code).toBe(code);
        await nothingCompleted(created.body.id);
      }
    },
  );

  /** The adult's PID naming a status list at `uri` (served, or not, by the test's list server). */
  async function presentWithListAt(uri: string) {
    const credential = await issuer.issueFor('adult', MDOC_PID.doctype, { status: { uri } });
    const { id, signer, wr } = await atWalletStep();
    const response = await t.svc.wallet.presentMdoc({
      persona: 'adult',
      doctypes: [MDOC_PID.doctype],
      request: wr.request,
      origin: t.baseUrl,
      overrides: { credential },
    });
    return { id, res: await signer.submit(wr.request_id, response) };
  }

  it.each([
    {
      name: 'an unreachable list',
      serve: async () => 'http://127.0.0.1:9/unreachable',
    },
    {
      name: 'a list that answers 404',
      serve: async () => `${listBase}/missing`,
    },
    {
      name: 'a list signed under an untrusted IACA',
      serve: async () => {
        const uri = `${listBase}/untrusted`;
        const body = await issuer.statusListCwt(SANDBOX_MDOC_STATUS_LIST_ID, 'untrusted', uri);
        served.set('/untrusted', { type: 'application/statuslist+cwt', body });
        return uri;
      },
    },
    {
      name: 'a tampered list (one byte of the claims changed)',
      serve: async () => {
        const uri = `${listBase}/tampered`;
        const body = await issuer.statusListCwt(SANDBOX_MDOC_STATUS_LIST_ID, 'trusted', uri);
        const tampered = new Uint8Array(body);
        const at = tampered.length - 80; // inside the payload (the signature is the last 64 bytes)
        tampered[at] = (tampered[at] as number) ^ 0x01;
        served.set('/tampered', { type: 'application/statuslist+cwt', body: tampered });
        return uri;
      },
    },
    {
      name: 'a list for another URI (sub)',
      serve: async () => {
        const body = await issuer.statusListCwt(SANDBOX_MDOC_STATUS_LIST_ID, 'trusted');
        served.set('/elsewhere', { type: 'application/statuslist+cwt', body });
        return `${listBase}/elsewhere`;
      },
    },
    {
      name: 'a list served with another content type',
      serve: async () => {
        const uri = `${listBase}/wrong-type`;
        const body = await issuer.statusListCwt(SANDBOX_MDOC_STATUS_LIST_ID, 'trusted', uri);
        served.set('/wrong-type', { type: 'application/octet-stream', body });
        return uri;
      },
    },
  ])('$name is status_check_failed, never valid', async ({ serve }) => {
    const { id, res } = await presentWithListAt(await serve());
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('status_check_failed');
    await nothingCompleted(id);
  });

  it('the same list served untampered at that URI is accepted (the cases above fail for their reason)', async () => {
    const uri = `${listBase}/good`;
    const body = await issuer.statusListCwt(SANDBOX_MDOC_STATUS_LIST_ID, 'trusted', uri);
    served.set('/good', { type: 'application/statuslist+cwt', body });
    const { res } = await presentWithListAt(uri);
    expect(res.status).toBe(200);
  });
});
