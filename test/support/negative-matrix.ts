// The negative matrix's harness (issue 4, "Proof"; the cases are in test/api/negative-matrix.*.test.ts): a
// service with one workflow per kind, a fresh session per case, the honest wallets with one deviation each, and
// the check that a refused answer completed nothing. Fresh sessions per case, because 5 refusals for one step
// fail a session by policy.
import { createHash, generateKeyPairSync } from 'node:crypto';
import { base64url, decodeJwt, importJWK, type JWK, SignJWT } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ManualClock } from '../../server/src/common/clock';
import type { PresentOverrides, WalletResponse } from '../../server/src/modules/sandbox/reference-wallet';
import { SandboxCredentialEntity } from '../../server/src/modules/sandbox/sandbox-credential.entity';
import { loadSandboxKey } from '../../server/src/modules/sandbox/sandbox-issuer';
import { WalletRequestEntity } from '../../server/src/modules/verification/wallet-request.entity';
import { WebhookEventEntity } from '../../server/src/modules/webhook/webhook-event.entity';
import { Api, createBusiness, type Json, startTestService, type TestService } from './harness';
import { type AnnexCOverrides, AnnexCWallet } from './independent-wallet/annex-c-wallet';
import { expectNothingStored } from './nothing-stored';
import { createSignSession, pdfPart, setUpSignWorkflow } from './sign-workflow';
import { SignerClient } from './signer';
import { minimalPdf, publishWorkflow } from './workflows';

export const sha256Hex = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');
export const b64uSha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('base64url');
export const decodeB64Json = (s: string): Json => JSON.parse(Buffer.from(s, 'base64url').toString('utf8'));
export const encodeB64Json = (v: unknown) => base64url.encode(JSON.stringify(v));
export const TERMS = 'I accept the rental terms and confirm the device is in good condition.';

/** The single SD-JWT presentation of a DC API response (`vp_token.pid[0]`). */
export const presentationOf = (r: WalletResponse) => r.vp_token.pid?.[0] as string;
export const withPresentation = (p: string): WalletResponse => ({ vp_token: { pid: [p] } });

export type Workflow = 'identify' | 'sign' | 'attestation' | 'two_identify';
export type Result = { status: number; body: Json };

export interface Ctx {
  id: string;
  signer: SignerClient;
}

export interface Case {
  name: string;
  code: string;
  /** HTTP status of the refusal; 422 unless said. */
  http?: number;
  workflow?: Workflow;
  /** Session status after the refusal (in_progress unless said). */
  after?: string;
  /** Steps completed honestly before the refused answer (their results must stay, nothing more). */
  completedBefore?: number;
  /** Whether the answer burns its wallet request (a verification refusal); unknown/used ids do not. */
  burns?: boolean;
  run(ctx: Ctx): Promise<Result>;
}

/** Starts the matrix's service (in the caller's describe) and returns the helpers the cases are written with. */
export function negativeMatrix(label: string) {
  const clock = new ManualClock();
  let t: TestService;
  let api: Api;
  const workflows = {} as Record<Workflow, string>;
  const pdf = minimalPdf('Contract no. 7');
  let holderJwk: JWK;
  const otherKey = generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ format: 'jwk' });

  beforeAll(async () => {
    t = await startTestService({ label, clock, workers: false });
    const biz = await createBusiness(t);
    api = new Api(t.baseUrl, biz.apiKey);
    ({ workflowId: workflows.identify } = await publishWorkflow(
      api,
      [{ primitive: 'identify', claims: ['given_name', 'family_name', 'birth_date', 'nationality'] }],
      'http://127.0.0.1:9/hooks',
    ));
    ({ workflowId: workflows.sign } = await setUpSignWorkflow(api));
    ({ workflowId: workflows.attestation } = await publishWorkflow(api, [
      { primitive: 'attestation', terms: TERMS },
    ]));
    ({ workflowId: workflows.two_identify } = await publishWorkflow(api, [
      // the same claims twice, so a replayed step-0 presentation answers step 1's query and meets its nonce
      { primitive: 'identify', claims: ['given_name', 'family_name'] },
      { primitive: 'identify', claims: ['given_name', 'family_name'] },
    ]));
    holderJwk = (await loadSandboxKey(t.svc.ds, 'holder', 'adult')).privateJwk as JWK;
    // The independent wallet (test/support/independent-wallet) with the adult's mdocs, for the Annex C rows.
    const mdocs = await t.svc.ds
      .getRepository(SandboxCredentialEntity)
      .findBy({ persona: 'adult', format: 'mso_mdoc' });
    isoWallet = new AnnexCWallet(
      mdocs.map((r) => ({ issuerSigned: r.credential, devicePrivateJwk: holderJwk as JsonWebKey })),
    );
  });
  let isoWallet: AnnexCWallet;
  afterAll(async () => t?.stop());

  async function newSession(workflow: Workflow): Promise<Ctx> {
    const created =
      workflow === 'sign'
        ? await createSignSession(api, workflows.sign, [pdfPart('contract.pdf', pdf)])
        : await api.rest('POST', '/v1/sessions', { workflow_id: workflows[workflow] });
    expect(created.status).toBe(201);
    const signer = new SignerClient(t.baseUrl, created.body.id);
    expect((await signer.start()).status).toBe(200);
    return { id: created.body.id as string, signer };
  }

  /** The hosted page's (unsigned DC API) request for the current step. */
  async function hostedRequest(ctx: Ctx): Promise<{ request_id: string; request: Json }> {
    const wr = await ctx.signer.walletRequest();
    expect(wr.status).toBe(200);
    return wr.body;
  }

  const present = (request: Json, overrides: PresentOverrides = {}, persona = 'adult') =>
    t.svc.wallet.presentWith({ persona, request, origin: t.baseUrl, overrides });

  /** One hosted exchange: fetch a request, let the wallet answer it (with one deviation), submit. */
  async function hosted(
    ctx: Ctx,
    answer: (request: Json) => Promise<unknown>,
  ): Promise<Result & { requestId: string }> {
    const wr = await hostedRequest(ctx);
    const res = await ctx.signer.submit(wr.request_id, await answer(wr.request));
    return { ...res, requestId: wr.request_id };
  }
  const overriding =
    (overrides: PresentOverrides | ((request: Json) => PresentOverrides), persona = 'adult') =>
    (ctx: Ctx) =>
      hosted(ctx, (request) =>
        present(request, typeof overrides === 'function' ? overrides(request) : overrides, persona),
      );
  /** The honest presentation, edited as a string before it is sent. */
  const editing = (edit: (presentation: string) => Promise<string> | string) => (ctx: Ctx) =>
    hosted(ctx, async (request) => withPresentation(await edit(presentationOf(await present(request)))));

  /** A cross-device request as the wallet resolves it (signed request object fetched over HTTP). */
  async function crossDevice(ctx: Ctx) {
    const cd = await ctx.signer.call('POST', '/wallet-request/cross_device');
    expect(cd.status).toBe(200);
    const { payload } = await t.svc.signedWallet.fetchRequest(cd.body.uri);
    return payload;
  }

  /** Re-signs the key-binding JWT of a presentation with the holder key, after `change`. */
  async function resignKb(
    presentation: string,
    change: (header: Json, payload: Json) => void,
    key: JWK = holderJwk,
  ): Promise<string> {
    const cut = presentation.lastIndexOf('~') + 1;
    const header: Json = { alg: 'ES256', typ: 'kb+jwt' };
    const payload = decodeJwt(presentation.slice(cut)) as Json;
    change(header, payload);
    const kb = await new SignJWT(payload)
      .setProtectedHeader(header as { alg: string })
      .sign(await importJWK(key, 'ES256'));
    return presentation.slice(0, cut) + kb;
  }

  /** An ISO 18013-7 Annex C exchange (org-iso-mdoc) answered by the independent wallet with one deviation. */
  const annexC =
    (overrides: AnnexCOverrides, encryptionInfoOf?: (ctx: Ctx) => Promise<string>) => async (ctx: Ctx) => {
      const wr = await ctx.signer.call('POST', '/wallet-request/org_iso_mdoc');
      expect(wr.status).toBe(200);
      const o = encryptionInfoOf ? { ...overrides, encryptionInfo: await encryptionInfoOf(ctx) } : overrides;
      const answer = await isoWallet.answer(wr.body.request, new URL(t.baseUrl).origin, o);
      return ctx.signer.submit(wr.body.request_id as string, answer);
    };

  const nowS = () => Math.floor(clock.now().getTime() / 1000);
  const withOtherDocumentHash = (request: Json) => {
    const td = decodeB64Json((request.transaction_data as string[])[0] as string);
    td.documents[0].sha256 = sha256Hex('another contract');
    return encodeB64Json(td);
  };

  /** No more than `completedBefore` steps: results, audit records, evidence, step.completed rows. */
  async function expectNothingCompleted(
    id: string,
    { completedBefore = 0, after = 'in_progress' }: { completedBefore?: number; after?: string },
  ) {
    // the matrix's steps keep no evidence of a refused answer (sign/attestation keep it only on completion)
    await expectNothingStored(t, api, id, { completedBefore, status: after, evidence: 0 });
    expect((await api.rest('GET', `/v1/audits/${id}_${completedBefore}`)).status).toBe(404);
    const events = await t.svc.ds.getRepository(WebhookEventEntity).findBy({ sessionId: id });
    expect(events.filter((e) => e.event === 'session.completed')).toHaveLength(0);
  }

  return {
    clock,
    get t() {
      return t;
    },
    get api() {
      return api;
    },
    otherKey,
    newSession,
    hostedRequest,
    present,
    hosted,
    overriding,
    editing,
    crossDevice,
    resignKb,
    annexC,
    nowS,
    withOtherDocumentHash,
    expectNothingCompleted,
  };
}
// the cross-device wallet's primitives, for cases that craft the direct_post.jwt answer themselves (imported
// here, after the service, so that its decorators' metadata polyfill is loaded first)
export { encryptResponse, postResponse } from '../../server/src/modules/sandbox/signed-request-wallet';
export type NegativeMatrix = ReturnType<typeof negativeMatrix>;
export interface Control {
  name: string;
  run(ctx: Ctx): Promise<Result>;
}

/**
 * Registers the matrix's tests: each control (the same helpers without the deviation) completes the step, so
 * each refusal is caused by its one deviation; the case names are distinct; and each case is refused with its
 * code, completes nothing, and burns its wallet request exactly when it is a verification refusal.
 */
export function matrixTests(m: NegativeMatrix, cases: Case[], controls: Control[], atLeast: number): void {
  it.each(controls)('control: $name completes the step', async ({ run }) => {
    const ctx = await m.newSession('identify');
    expect((await run(ctx)).status).toBe(200);
    const read = await m.api.rest('GET', `/v1/sessions/${ctx.id}`);
    expect(read.body.status).toBe('completed');
    expect(read.body.results).toHaveLength(1);
  });

  it(`has at least ${atLeast} distinct cases`, () => {
    expect(new Set(cases.map((c) => c.name)).size).toBe(cases.length);
    expect(cases.length).toBeGreaterThanOrEqual(atLeast);
  });

  it.each(cases)('refuses $name with $code', async (c) => {
    const ctx = await m.newSession(c.workflow ?? 'identify');
    const res = await c.run(ctx);
    expect({ status: res.status, code: res.body?.code }).toEqual({ status: c.http ?? 422, code: c.code });
    await m.expectNothingCompleted(ctx.id, c);
    // A verification refusal burns its single-use request (and counts toward the failure policy); an
    // unknown or already-used request id, or an expired session, does not.
    const refused = await m.t.svc.ds
      .getRepository(WalletRequestEntity)
      .countBy({ sessionId: ctx.id, state: 'refused' });
    expect(refused).toBe((c.burns ?? true) ? 1 : 0);
  });
}
