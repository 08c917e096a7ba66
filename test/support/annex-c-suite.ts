import { afterAll, beforeAll, expect } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import { SandboxMdocIssuer } from '../../server/src/modules/sandbox/mdoc/mdoc-issuer';
import { SandboxCredentialEntity } from '../../server/src/modules/sandbox/sandbox-credential.entity';
import { loadSandboxKey } from '../../server/src/modules/sandbox/sandbox-issuer';
import { Api, createBusiness, startTestService, type TestService } from './harness';
import { type AnnexCRequest, AnnexCWallet, type HeldMdoc } from './independent-wallet/annex-c-wallet';
import { expectNothingStored as nothingStored } from './nothing-stored';
import { setUpSignWorkflow } from './sign-workflow';
import { SignerClient } from './signer';
import { publishWorkflow } from './workflows';

export type Workflow = 'identify' | 'age_verify' | 'two_identify';
export interface AnnexCState {
  t: TestService;
  api: Api;
  origin: string;
  held: HeldMdoc[];
  wallet: AnnexCWallet;
  issuer: SandboxMdocIssuer;
  devicePrivateJwk: JsonWebKey;
}

/** Starts the service (in the caller's describe); `state` is filled before the caller's own beforeAll runs. */
export function annexCSuite(label: string) {
  const clock = new ManualClock();
  let t: TestService;
  let api: Api;
  let origin: string;
  const workflows = {} as Record<Workflow | 'sign' | 'attestation', string>;
  let held: HeldMdoc[];
  let wallet: AnnexCWallet;
  let issuer: SandboxMdocIssuer;
  let devicePrivateJwk: JsonWebKey;

  beforeAll(async () => {
    t = await startTestService({ label, clock, workers: false });
    origin = new URL(t.baseUrl).origin;
    const biz = await createBusiness(t);
    api = new Api(t.baseUrl, biz.apiKey);
    ({ workflowId: workflows.identify } = await publishWorkflow(
      api,
      [{ primitive: 'identify', claims: ['given_name', 'family_name', 'birth_date', 'nationality'] }],
      'http://127.0.0.1:9/hooks',
    ));
    ({ workflowId: workflows.age_verify } = await publishWorkflow(api, [
      { primitive: 'age_verify', threshold: 18 },
    ]));
    ({ workflowId: workflows.two_identify } = await publishWorkflow(api, [
      { primitive: 'identify', claims: ['given_name', 'family_name'] },
      { primitive: 'identify', claims: ['given_name', 'family_name'] },
    ]));
    ({ workflowId: workflows.sign } = await setUpSignWorkflow(api));
    ({ workflowId: workflows.attestation } = await publishWorkflow(api, [
      { primitive: 'attestation', terms: 'I agree.' },
    ]));
    // Provisioning, like any wallet that received its mdocs: the documents the sandbox mdoc issuer issued to
    // the adult persona's device key (sandbox_credential), and that key.
    devicePrivateJwk = (await loadSandboxKey(t.svc.ds, 'holder', 'adult')).privateJwk as JsonWebKey;
    const rows = await t.svc.ds
      .getRepository(SandboxCredentialEntity)
      .findBy({ persona: 'adult', format: 'mso_mdoc' });
    held = rows.map((r) => ({ issuerSigned: r.credential, devicePrivateJwk }));
    expect(held.length).toBe(3);
    wallet = new AnnexCWallet(held);
    issuer = new SandboxMdocIssuer({ ds: t.svc.ds, clock });
  });
  afterAll(async () => t?.stop());

  async function newSession(workflow: Workflow) {
    const created = await api.rest('POST', '/v1/sessions', { workflow_id: workflows[workflow] });
    expect(created.status).toBe(201);
    const signer = new SignerClient(t.baseUrl, created.body.id);
    expect((await signer.start()).status).toBe(200);
    return { id: created.body.id as string, signer };
  }

  async function annexCRequest(signer: SignerClient) {
    const wr = await signer.call('POST', '/wallet-request/org_iso_mdoc');
    expect(wr.status).toBe(200);
    expect(wr.body.protocol).toBe('org-iso-mdoc');
    return { requestId: wr.body.request_id as string, request: wr.body.request as AnnexCRequest };
  }
  /** Nothing of the step was stored (support/nothing-stored.ts); Annex C steps here keep no evidence. */
  const expectNothingStored = (id: string, completedBefore = 0) =>
    nothingStored(t, api, id, { completedBefore, evidence: 0 });

  const state = {} as AnnexCState;
  beforeAll(() => {
    Object.assign(state, { t, api, origin, held, wallet, issuer, devicePrivateJwk });
  });

  return { clock, workflows, state, newSession, annexCRequest, expectNothingStored };
}
