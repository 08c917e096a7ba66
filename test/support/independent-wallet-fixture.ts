// A service and business for tests that drive the independent wallet (test/support/independent-wallet) over
// every transport: workflows for each primitive, the adult persona's credentials handed to the wallet as a
// wallet receives them (sandbox_credential rows and the device key), and the hosted transport calls of one
// exchange. Lives outside the wallet's folder because it reads our server's tables (the wallet may not).
import { createHash } from 'node:crypto';
import { expect } from 'vitest';
import type { ManualClock } from '../../server/src/common/clock';
import { SandboxCredentialEntity } from '../../server/src/modules/sandbox/sandbox-credential.entity';
import { loadSandboxKey } from '../../server/src/modules/sandbox/sandbox-issuer';
import { WalletRequestEntity } from '../../server/src/modules/verification/wallet-request.entity';
import { WebhookEventEntity } from '../../server/src/modules/webhook/webhook-event.entity';
import { Api, createBusiness, type Json, startTestService, type TestService } from './harness';
import type { AnnexCRequest } from './independent-wallet/annex-c-wallet';
import { IndependentWallet, type WalletFormat, type WalletLies } from './independent-wallet/wallet';
import { expectNothingStored } from './nothing-stored';
import { createSignSession, pdfPart, setUpSignWorkflow } from './sign-workflow';
import { SignerClient } from './signer';
import { minimalPdf, publishWorkflow } from './workflows';

export type Primitive = 'identify' | 'age_verify' | 'sign' | 'attestation';
export type Workflow = Primitive | 'two_identify';
export type Transport = 'dc_api' | 'dc_api_signed' | 'cross_device' | 'org_iso_mdoc';
export const TERMS = 'I accept the rental terms and confirm the device is in good condition.';
export const PDF = minimalPdf('Contract no. 18');
export const PDF_SHA256 = createHash('sha256').update(PDF).digest('hex');

export interface Ctx {
  id: string;
  signer: SignerClient;
}
export type Result = { status: number; body: Json };

export class IndependentWalletFixture {
  t!: TestService;
  api!: Api;
  wallet!: IndependentWallet;
  origin!: string;
  rootPem!: string;
  private readonly workflows = {} as Record<Workflow, string>;

  constructor(private readonly clock: ManualClock) {}

  async start(label: string): Promise<void> {
    this.t = await startTestService({ label, clock: this.clock, workers: false });
    this.origin = new URL(this.t.baseUrl).origin;
    this.api = new Api(this.t.baseUrl, (await createBusiness(this.t)).apiKey);
    const publish = async (w: Workflow, steps: Parameters<typeof publishWorkflow>[1]) => {
      this.workflows[w] = (await publishWorkflow(this.api, steps, 'http://127.0.0.1:9/hooks')).workflowId;
    };
    await publish('identify', [
      { primitive: 'identify', claims: ['given_name', 'family_name', 'birth_date', 'nationality'] },
    ]);
    await publish('age_verify', [{ primitive: 'age_verify', threshold: 18 }]);
    this.workflows.sign = (
      await setUpSignWorkflow(this.api, { webhookUrl: 'http://127.0.0.1:9/hooks' })
    ).workflowId;
    await publish('attestation', [{ primitive: 'attestation', terms: TERMS }]);
    await publish('two_identify', [
      { primitive: 'identify', claims: ['given_name', 'family_name'] },
      { primitive: 'identify', claims: ['given_name', 'family_name'] },
    ]);
    // Provisioning, like any wallet that received its credentials: what the sandbox issuers issued to the adult
    // persona's device key, and that key.
    const key = (await loadSandboxKey(this.t.svc.ds, 'holder', 'adult')).privateJwk as JsonWebKey;
    const rows = await this.t.svc.ds.getRepository(SandboxCredentialEntity).findBy({ persona: 'adult' });
    const sdJwt = rows.find((r) => r.format === 'dc+sd-jwt');
    const mdocs = rows.filter((r) => r.format === 'mso_mdoc');
    expect({ sdJwt: !!sdJwt, mdocs: mdocs.length }).toEqual({ sdJwt: true, mdocs: 3 });
    this.wallet = new IndependentWallet(
      mdocs.map((r) => ({ issuerSigned: r.credential, devicePrivateJwk: key })),
      { credential: sdJwt?.credential as string, holderPrivateJwk: key },
      () => this.clock.now(),
    );
    this.rootPem = await (await fetch(`${this.t.baseUrl}/oid4vp/verifier-root.pem`)).text();
  }

  async stop(): Promise<void> {
    await this.t?.stop();
  }

  async newSession(workflow: Workflow): Promise<Ctx> {
    const created =
      workflow === 'sign'
        ? await createSignSession(this.api, this.workflows.sign, [pdfPart('contract.pdf', PDF)])
        : await this.api.rest('POST', '/v1/sessions', { workflow_id: this.workflows[workflow] });
    expect(created.status).toBe(201);
    const signer = new SignerClient(this.t.baseUrl, created.body.id);
    expect((await signer.start()).status).toBe(200);
    return { id: created.body.id as string, signer };
  }

  /** The hosted page's request of `transport` for the current step (documents reported shown first). */
  async request(ctx: Ctx, transport: Transport): Promise<{ requestId: string; body: Json }> {
    await ctx.signer.showCurrentDocuments();
    const wr = await ctx.signer.call(
      'POST',
      transport === 'dc_api' ? '/wallet-request' : `/wallet-request/${transport}`,
    );
    expect(wr.status, JSON.stringify(wr.body)).toBe(200);
    return { requestId: wr.body.request_id as string, body: wr.body };
  }

  /** The wallet's answer to a fetched request (over the page, or POSTed to response_uri cross-device). */
  async answer(
    ctx: Ctx,
    transport: Transport,
    format: WalletFormat,
    req: { requestId: string; body: Json },
    lies: WalletLies = {},
  ): Promise<Result> {
    const w = this.wallet;
    const submit = async (data: unknown) => ctx.signer.submit(req.requestId, data);
    switch (transport) {
      case 'dc_api':
        return submit(await w.dcApiUnsigned(req.body.request, this.origin, format, lies));
      case 'dc_api_signed':
        return submit(await w.dcApiSigned(req.body.request, this.rootPem, this.origin, format, lies));
      case 'org_iso_mdoc':
        return submit(await w.annexC(req.body.request as AnnexCRequest, this.origin, lies));
      case 'cross_device': {
        const posted = await w.crossDevice(req.body.uri as string, this.rootPem, format, lies);
        return { status: posted.status, body: posted.body };
      }
    }
  }

  /** One exchange: fetch a request of `transport`, let the wallet answer (with its lies), submit. */
  async exchange(
    ctx: Ctx,
    transport: Transport,
    format: WalletFormat,
    lies: WalletLies = {},
  ): Promise<Result> {
    return this.answer(ctx, transport, format, await this.request(ctx, transport), lies);
  }

  /** The step.completed webhook bodies queued for a session (the outbox rows the business will receive). */
  async stepCompletedEvents(id: string): Promise<Json[]> {
    const rows = await this.t.svc.ds.getRepository(WebhookEventEntity).findBy({ sessionId: id });
    return rows.filter((e) => e.event === 'step.completed').map((e) => JSON.parse(e.body));
  }

  /** Nothing of the step was stored: no result, audit record, evidence or step.completed event. */
  expectNothingStored(id: string, completedBefore = 0): Promise<void> {
    return expectNothingStored(this.t, this.api, id, { completedBefore });
  }

  /** How many wallet requests of the session a refusal burnt. */
  refusedRequests(id: string): Promise<number> {
    return this.t.svc.ds.getRepository(WalletRequestEntity).countBy({ sessionId: id, state: 'refused' });
  }
}
